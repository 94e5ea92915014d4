import { normalizeTagName, parseTagEvent, type TagEvent } from '@renkei/domain';
import { invalid, notFound, type Decider, type Decision } from '../shared/decider.ts';

export interface TagState {
  status: 'absent' | 'active' | 'deleted';
  name: string;
  normalizedName: string;
  description: string;
  groupName: string | null;
}

const initialTagState: TagState = {
  status: 'absent',
  name: '',
  normalizedName: '',
  description: '',
  groupName: null,
};

export type TagCommand =
  | { type: 'CreateTag'; tagId: string; name: string; description: string; groupName: string | null }
  | { type: 'UpdateTag'; tagId: string; name: string; description: string; groupName: string | null }
  | { type: 'DeleteTag'; tagId: string };

function evolve(state: TagState, event: TagEvent): TagState {
  switch (event.type) {
    case 'TagCreated':
    case 'TagUpdated':
      return {
        status: 'active',
        name: event.data.name,
        normalizedName: normalizeTagName(event.data.name),
        description: event.data.description,
        groupName: event.data.group_name,
      };
    case 'TagDeleted':
      return { ...state, status: 'deleted' };
    default: {
      const never: never = event;
      return never;
    }
  }
}

export function foldTag(events: readonly TagEvent[]): TagState {
  return events.reduce(evolve, initialTagState);
}

/**
 * Pure decisions on one tag. Name uniqueness and the tenant's tag limit span many tags and are
 * held with the append (tag-names.ts); this only knows one tag's history.
 */
function decide(state: TagState, command: TagCommand): Decision<TagEvent> {
  switch (command.type) {
    case 'CreateTag':
      if (state.status !== 'absent') return invalid({ field: 'id', message: 'このタグは既に登録されています。' });
      return [
        {
          type: 'TagCreated',
          data: {
            tag_id: command.tagId,
            name: command.name,
            description: command.description,
            group_name: command.groupName,
          },
        },
      ];
    case 'UpdateTag': {
      if (state.status !== 'active') return notFound();
      // Saving the same values again is not a change: no event, no new version.
      if (
        state.name === command.name &&
        state.description === command.description &&
        state.groupName === command.groupName
      ) {
        return [];
      }
      return [
        {
          type: 'TagUpdated',
          data: {
            tag_id: command.tagId,
            name: command.name,
            description: command.description,
            group_name: command.groupName,
          },
        },
      ];
    }
    case 'DeleteTag':
      if (state.status !== 'active') return notFound();
      return [{ type: 'TagDeleted', data: { tag_id: command.tagId } }];
    default: {
      const never: never = command;
      return never;
    }
  }
}

export const tagDecider: Decider<TagState, TagCommand, TagEvent> = {
  initialState: () => initialTagState,
  evolve,
  decide,
  parse: parseTagEvent,
};
