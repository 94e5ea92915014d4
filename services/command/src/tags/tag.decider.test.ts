import { describe, it } from 'vitest';
import type { TagEvent } from '@renkei/domain';
import { notFound } from '../shared/decider.ts';
import { given } from '../shared/given-when-then.ts';
import { tagDecider } from './tag.decider.ts';

const tagId = '0f8fad5b-d9cb-469f-a165-70867728950e';
const created: TagEvent = {
  type: 'TagCreated',
  data: { tag_id: tagId, name: '連携先', description: '', group_name: null },
};
const deleted: TagEvent = { type: 'TagDeleted', data: { tag_id: tagId } };

describe('tag decider', () => {
  it('creates a tag that does not exist', () => {
    given(tagDecider, [])
      .when({ type: 'CreateTag', tagId, name: '連携先', description: '', groupName: null })
      .then([created]);
  });

  it('refuses to create the same tag twice', () => {
    given(tagDecider, [created])
      .when({ type: 'CreateTag', tagId, name: 'x', description: '', groupName: null })
      .thenRejected({ rejected: 'invalid', errors: [{ field: 'id', message: 'このタグは既に登録されています。' }] });
  });

  it('updates an existing tag', () => {
    given(tagDecider, [created])
      .when({ type: 'UpdateTag', tagId, name: '重点', description: '説明', groupName: '地域' })
      .then([{ type: 'TagUpdated', data: { tag_id: tagId, name: '重点', description: '説明', group_name: '地域' } }]);
  });

  it('records nothing when an update changes nothing', () => {
    given(tagDecider, [created])
      .when({ type: 'UpdateTag', tagId, name: '連携先', description: '', groupName: null })
      .then([]);
  });

  it('deletes an existing tag', () => {
    given(tagDecider, [created]).when({ type: 'DeleteTag', tagId }).then([deleted]);
  });

  it('treats a deleted or unknown tag as not found', () => {
    given(tagDecider, [created, deleted])
      .when({ type: 'UpdateTag', tagId, name: 'a', description: '', groupName: null })
      .thenRejected(notFound());
    given(tagDecider, [created, deleted]).when({ type: 'DeleteTag', tagId }).thenRejected(notFound());
    given(tagDecider, []).when({ type: 'DeleteTag', tagId }).thenRejected(notFound());
  });
});
