import { z } from 'zod';
import { eventParser } from '../event-union.ts';

/**
 * Partner feedback (VOC, 連携先の声) of a tenant: stream `voc-<uuid>`, which also holds the VOC's links
 * to communications (`communication_ids`), whichever side sets them. The tenant's VOC groups are one
 * stream, `voc_groups-<tenant id>`: a short list replaced whole.
 */
export const vocAggregate = 'voc';
export const vocGroupsAggregate = 'voc_groups';

const uuid = z.string().uuid();

export const VocStatusData = z.enum(['NOT_STARTED', 'IN_PROGRESS', 'COMPLETED', 'NO_ACTION_REQUIRED']);
export const VocPriorityData = z.enum(['LOW', 'MIDDLE', 'HIGH']);

export const VocFields = z.object({
  voc_id: uuid,
  medical_institution_id: uuid,
  title: z.string(),
  /** A date only (YYYY-MM-DD). */
  reported_date: z.string(),
  status: VocStatusData,
  priority: VocPriorityData,
  detail_text: z.string(),
  action_text: z.string(),
  /** The staff member who heard it. */
  user_id: uuid.nullable(),
  voc_group_id: uuid.nullable(),
  communication_ids: z.array(uuid),
});
export type VocFields = z.infer<typeof VocFields>;

export const VocDeleted = z.object({ voc_id: uuid, medical_institution_id: uuid });
export type VocDeleted = z.infer<typeof VocDeleted>;

/** The links changed from a communication's side (`PUT /communications/{id}/vocs`). */
export const VocCommunicationsChanged = z.object({ voc_id: uuid, communication_ids: z.array(uuid) });
export type VocCommunicationsChanged = z.infer<typeof VocCommunicationsChanged>;

export const vocEventSchemas = {
  VocCreated: VocFields,
  /** An edit carries the whole record. */
  VocUpdated: VocFields,
  VocDeleted,
  VocCommunicationsChanged,
} as const;

/** A stored event of a VOC stream as its typed union; anything else throws. */
export const parseVocEvent = eventParser(vocAggregate, vocEventSchemas);

export const VocGroupsReplaced = z.object({ voc_groups: z.array(z.object({ id: uuid, name: z.string() })) });
export type VocGroupsReplaced = z.infer<typeof VocGroupsReplaced>;

export const vocGroupEventSchemas = { VocGroupsReplaced } as const;

/** A stored event of a tenant's VOC-group stream. */
export const parseVocGroupEvent = eventParser(vocGroupsAggregate, vocGroupEventSchemas);
