import { z } from 'zod';
import { eventParser } from '../event-union.ts';

/**
 * Action lists (アクションリスト) of a tenant: stream `action_list-<uuid>`, holding the list and its
 * institution items; the stream revision is the list's `version`. Item events name only the
 * institutions they change, so a bulk call's count is the length of its event's ids.
 */
export const actionListAggregate = 'action_list';

const uuid = z.string().uuid();

export const ActionListStatusData = z.enum(['in_progress', 'completed']);
export const ActionListItemStatusData = z.enum(['actioned', 'not_actioned']);

export const ActionListCreated = z.object({ action_list_id: uuid, name: z.string() });
export type ActionListCreated = z.infer<typeof ActionListCreated>;

export const ActionListRenamed = z.object({ action_list_id: uuid, name: z.string() });
export type ActionListRenamed = z.infer<typeof ActionListRenamed>;

export const ActionListStatusChanged = z.object({ action_list_id: uuid, status: ActionListStatusData });
export type ActionListStatusChanged = z.infer<typeof ActionListStatusChanged>;

/** The list and all its items are gone. */
export const ActionListDeleted = z.object({ action_list_id: uuid });
export type ActionListDeleted = z.infer<typeof ActionListDeleted>;

/** Institutions put on the list (not there before), each not yet actioned. */
export const ActionListItemsAdded = z.object({ action_list_id: uuid, medical_institution_ids: z.array(uuid) });
export type ActionListItemsAdded = z.infer<typeof ActionListItemsAdded>;

/** Institutions taken off the list (they were on it). */
export const ActionListItemsRemoved = z.object({ action_list_id: uuid, medical_institution_ids: z.array(uuid) });
export type ActionListItemsRemoved = z.infer<typeof ActionListItemsRemoved>;

/** Items whose status changed to `status` (items already at it are not named). */
export const ActionListItemsStatusChanged = z.object({
  action_list_id: uuid,
  medical_institution_ids: z.array(uuid),
  status: ActionListItemStatusData,
});
export type ActionListItemsStatusChanged = z.infer<typeof ActionListItemsStatusChanged>;

export const actionListEventSchemas = {
  ActionListCreated,
  ActionListRenamed,
  ActionListStatusChanged,
  ActionListDeleted,
  ActionListItemsAdded,
  ActionListItemsRemoved,
  ActionListItemsStatusChanged,
} as const;

export type ActionListEvent =
  | { type: 'ActionListCreated'; data: ActionListCreated }
  | { type: 'ActionListRenamed'; data: ActionListRenamed }
  | { type: 'ActionListStatusChanged'; data: ActionListStatusChanged }
  | { type: 'ActionListDeleted'; data: ActionListDeleted }
  | { type: 'ActionListItemsAdded'; data: ActionListItemsAdded }
  | { type: 'ActionListItemsRemoved'; data: ActionListItemsRemoved }
  | { type: 'ActionListItemsStatusChanged'; data: ActionListItemsStatusChanged };

/** A stored event of an action-list stream as its typed union; anything else throws. */
export const parseActionListEvent = eventParser(actionListAggregate, actionListEventSchemas);
