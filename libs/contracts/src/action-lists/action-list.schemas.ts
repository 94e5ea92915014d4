import { z } from 'zod';

/** The spec names a list status without values; decided in docs/decisions.md (Contracts). */
export const ActionListStatus = z.enum(['in_progress', 'completed']);
export type ActionListStatus = z.infer<typeof ActionListStatus>;

/** Spec §4. */
export const ActionListItemStatus = z.enum(['actioned', 'not_actioned']);
export type ActionListItemStatus = z.infer<typeof ActionListItemStatus>;
