import { describe, expect, it } from 'vitest';
import type { TagEvent } from '@renkei/domain';
import { decide, foldTag, TagRejected, type TagCommand } from './tag.decider.ts';

const tagId = '0f8fad5b-d9cb-469f-a165-70867728950e';
const created: TagEvent = {
  type: 'TagCreated',
  data: { tag_id: tagId, name: '連携先', description: '', group_name: null },
};

const given = (events: TagEvent[]) => ({
  when: (command: TagCommand) => ({
    then: (expected: TagEvent[]) => expect(decide(foldTag(events), command)).toEqual(expected),
    thenRejected: (reason: TagRejected['reason']) => {
      expect(() => decide(foldTag(events), command)).toThrow(TagRejected);
      try {
        decide(foldTag(events), command);
      } catch (error) {
        expect((error as TagRejected).reason).toBe(reason);
      }
    },
  }),
});

describe('tag decider', () => {
  it('creates a tag that does not exist', () => {
    given([]).when({ type: 'CreateTag', tagId, name: '連携先', description: '', groupName: null }).then([created]);
  });

  it('refuses to create the same tag twice', () => {
    given([created])
      .when({ type: 'CreateTag', tagId, name: 'x', description: '', groupName: null })
      .thenRejected('already_exists');
  });

  it('updates an existing tag', () => {
    given([created])
      .when({ type: 'UpdateTag', tagId, name: '重点', description: '説明', groupName: '地域' })
      .then([{ type: 'TagUpdated', data: { tag_id: tagId, name: '重点', description: '説明', group_name: '地域' } }]);
  });

  it('records nothing when an update changes nothing', () => {
    given([created]).when({ type: 'UpdateTag', tagId, name: '連携先', description: '', groupName: null }).then([]);
  });

  it('deletes an existing tag', () => {
    given([created])
      .when({ type: 'DeleteTag', tagId })
      .then([{ type: 'TagDeleted', data: { tag_id: tagId } }]);
  });

  it('treats a deleted or unknown tag as not found', () => {
    const deleted: TagEvent = { type: 'TagDeleted', data: { tag_id: tagId } };
    given([created, deleted])
      .when({ type: 'UpdateTag', tagId, name: 'a', description: '', groupName: null })
      .thenRejected('not_found');
    given([created, deleted]).when({ type: 'DeleteTag', tagId }).thenRejected('not_found');
    given([]).when({ type: 'DeleteTag', tagId }).thenRejected('not_found');
  });
});
