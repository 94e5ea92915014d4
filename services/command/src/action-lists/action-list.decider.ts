import { parseActionListEvent, type ActionListEvent } from '@renkei/domain';
import type { ActionListItemStatus, ActionListStatus, FieldError } from '@renkei/contracts';
import { invalid, notFound, type Decider, type Decision } from '../shared/decider.ts';

/** Items one list may hold: enough for a prefecture's clinics, small enough to fold on every write. */
export const maxActionListItems = 20_000;
/** A 422 for thousands of unknown ids names the first few; the rest are alike. */
const maxReportedUnknownIds = 20;

export interface ActionListState {
  status: 'absent' | 'active' | 'deleted';
  name: string;
  listStatus: ActionListStatus;
  /** Institution id → item status, in the order they were added. */
  items: ReadonlyMap<string, ActionListItemStatus>;
}

const initialActionListState: ActionListState = {
  status: 'absent',
  name: '',
  listStatus: 'in_progress',
  items: new Map(),
};

/** Ids named by a body, with the institutions of the shared master among them (read by the route). */
interface InstitutionInput {
  institutionIds: readonly string[];
  knownInstitutionIds: ReadonlySet<string>;
}

export type ActionListCommand =
  | ({ type: 'CreateActionList'; actionListId: string; name: string } & InstitutionInput)
  | { type: 'RenameActionList'; actionListId: string; name: string }
  | { type: 'ChangeActionListStatus'; actionListId: string; status: ActionListStatus }
  | { type: 'DeleteActionList'; actionListId: string }
  /** `single`: POST …/medical_institutions, one institution whose presence is an error, not a no-op. */
  | ({ type: 'AddActionListItems'; actionListId: string; single: boolean } & InstitutionInput)
  | { type: 'RemoveActionListItems'; actionListId: string; institutionIds: readonly string[] }
  | {
      type: 'ChangeActionListItemsStatus';
      actionListId: string;
      institutionIds: readonly string[];
      status: ActionListItemStatus;
    };

function evolve(state: ActionListState, event: ActionListEvent): ActionListState {
  switch (event.type) {
    case 'ActionListCreated':
      return { status: 'active', name: event.data.name, listStatus: 'in_progress', items: new Map() };
    case 'ActionListRenamed':
      return { ...state, name: event.data.name };
    case 'ActionListStatusChanged':
      return { ...state, listStatus: event.data.status };
    case 'ActionListDeleted':
      return { ...state, status: 'deleted', items: new Map() };
    case 'ActionListItemsAdded': {
      const items = new Map(state.items);
      for (const id of event.data.medical_institution_ids) items.set(id, 'not_actioned');
      return { ...state, items };
    }
    case 'ActionListItemsRemoved': {
      const items = new Map(state.items);
      for (const id of event.data.medical_institution_ids) items.delete(id);
      return { ...state, items };
    }
    case 'ActionListItemsStatusChanged': {
      const items = new Map(state.items);
      for (const id of event.data.medical_institution_ids) if (items.has(id)) items.set(id, event.data.status);
      return { ...state, items };
    }
    default: {
      const never: never = event;
      return never;
    }
  }
}

/**
 * The ids to add: unknown institutions are a 422 naming their positions in the body, duplicates and
 * institutions already on the list are dropped, and the list may not grow past its cap.
 */
function additions(
  current: ReadonlyMap<string, ActionListItemStatus>,
  input: InstitutionInput,
  field: string,
): string[] | FieldError[] {
  const unknown: FieldError[] = [];
  input.institutionIds.forEach((id, i) => {
    if (!input.knownInstitutionIds.has(id) && unknown.length < maxReportedUnknownIds)
      unknown.push({ field: `${field}.${i}`, message: '医療機関が見つかりません' });
  });
  if (unknown.length > 0) return unknown;
  const added = [...new Set(input.institutionIds)].filter((id) => !current.has(id));
  if (current.size + added.length > maxActionListItems) {
    return [
      {
        field,
        message: `アクションリストに登録できる医療機関は${maxActionListItems}件までです（登録済み${current.size}件、追加${added.length}件）`,
      },
    ];
  }
  return added;
}

const isErrors = (value: string[] | FieldError[]): value is FieldError[] =>
  value.length > 0 && typeof value[0] !== 'string';

/** Pure decisions on one action list and its items. The institution master is read by the route. */
function decide(state: ActionListState, command: ActionListCommand): Decision<ActionListEvent> {
  const actionListId = command.actionListId;
  if (command.type === 'CreateActionList') {
    if (state.status !== 'absent')
      return invalid({ field: 'id', message: 'このアクションリストは既に登録されています。' });
    const added = additions(state.items, command, 'medical_institution_ids');
    if (isErrors(added)) return invalid(...added);
    return [
      { type: 'ActionListCreated', data: { action_list_id: actionListId, name: command.name } },
      ...(added.length > 0
        ? [
            {
              type: 'ActionListItemsAdded' as const,
              data: { action_list_id: actionListId, medical_institution_ids: added as string[] },
            },
          ]
        : []),
    ];
  }
  if (state.status !== 'active') return notFound();
  switch (command.type) {
    case 'RenameActionList':
      if (state.name === command.name) return [];
      return [{ type: 'ActionListRenamed', data: { action_list_id: actionListId, name: command.name } }];
    case 'ChangeActionListStatus':
      if (state.listStatus === command.status) return [];
      return [{ type: 'ActionListStatusChanged', data: { action_list_id: actionListId, status: command.status } }];
    case 'DeleteActionList':
      return [{ type: 'ActionListDeleted', data: { action_list_id: actionListId } }];
    case 'AddActionListItems': {
      const field = command.single ? 'medical_institution_id' : 'medical_institution_ids';
      if (command.single) {
        const id = command.institutionIds[0]!;
        if (!command.knownInstitutionIds.has(id)) return invalid({ field, message: '医療機関が見つかりません' });
        if (state.items.has(id))
          return invalid({ field, message: 'この医療機関は既にアクションリストに含まれています' });
      }
      const added = additions(state.items, command, field);
      if (isErrors(added)) return invalid(...added);
      if (added.length === 0) return [];
      return [{ type: 'ActionListItemsAdded', data: { action_list_id: actionListId, medical_institution_ids: added } }];
    }
    case 'RemoveActionListItems': {
      const removed = [...new Set(command.institutionIds)].filter((id) => state.items.has(id));
      if (removed.length === 0) return [];
      return [
        { type: 'ActionListItemsRemoved', data: { action_list_id: actionListId, medical_institution_ids: removed } },
      ];
    }
    case 'ChangeActionListItemsStatus': {
      const changed = [...new Set(command.institutionIds)].filter((id) => {
        const current = state.items.get(id);
        return current !== undefined && current !== command.status;
      });
      if (changed.length === 0) return [];
      return [
        {
          type: 'ActionListItemsStatusChanged',
          data: { action_list_id: actionListId, medical_institution_ids: changed, status: command.status },
        },
      ];
    }
    default: {
      const never: never = command;
      return never;
    }
  }
}

/** How many institutions a decision put on, took off or re-marked (a bulk call's `count`). */
export function changedCount(events: readonly ActionListEvent[]): number {
  let count = 0;
  for (const e of events) if ('medical_institution_ids' in e.data) count += e.data.medical_institution_ids.length;
  return count;
}

export const actionListDecider: Decider<ActionListState, ActionListCommand, ActionListEvent> = {
  initialState: () => initialActionListState,
  evolve,
  decide,
  parse: parseActionListEvent,
};
