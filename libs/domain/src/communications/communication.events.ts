import { z } from 'zod';
import { eventParser } from '../event-union.ts';
import { LabelComponentTypeData, LabelSelectionData, LabelValueData } from '../labels/label.events.ts';

/**
 * Communications (活動記録) of a tenant: stream `communication-<uuid>`. Comments and likes live in the
 * record's own stream; its `version` counts saves of the record itself (create and updates), so a
 * comment or a like never makes someone's open edit stale. Tasks entered with the record are born in
 * `CommunicationCreated` (one append: all or nothing) and change later in their own `task-<uuid>`
 * streams. Communication labels of a tenant are one stream, `communication_labels-<tenant id>`: a
 * handful of definitions whose names, order and required flags are checked together.
 */
export const communicationAggregate = 'communication';
export const communicationLabelsAggregate = 'communication_labels';

const uuid = z.string().uuid();

export const CommunicationTypeData = z.enum([
  'visit',
  'new_visit',
  'phone',
  'email',
  'postal_item',
  'event_attendance',
  'referral_acceptance',
  'refused_referral',
  'other',
]);
export type CommunicationTypeData = z.infer<typeof CommunicationTypeData>;

export const CommunicationFields = z.object({
  communication_id: uuid,
  medical_institution_id: uuid,
  communication_type: CommunicationTypeData,
  acted_date: z.string(),
  category: z.string().nullable(),
  purpose: z.string().nullable(),
  story: z.string(),
  event_name: z.string().nullable(),
  memo: z.string(),
  other_memo: z.string(),
  person_in_charge_hospital: z.string().nullable(),
  attendee: z.string().nullable(),
  is_doctor_attended: z.boolean(),
  /** The staff member who acted. */
  user_id: uuid,
  attachment_ids: z.array(uuid),
  label_values: z.array(LabelValueData),
});
export type CommunicationFields = z.infer<typeof CommunicationFields>;

export const CommunicationTaskData = z.object({
  task_id: uuid,
  title: z.string(),
  staff_id: uuid.nullable(),
  deadline: z.string().nullable(),
});
export type CommunicationTaskData = z.infer<typeof CommunicationTaskData>;

export const CommunicationCreated = CommunicationFields.extend({
  tasks: z.array(CommunicationTaskData),
  /** The email campaign the record was made from (one record per recipient institution); absent otherwise. */
  email_id: uuid.nullable().optional(),
});
export type CommunicationCreated = z.infer<typeof CommunicationCreated>;

/**
 * The first event of an imported record's stream, written with its first change (edit, delete,
 * comment, like): the record as its import's `CommunicationsImported` holds it. It is a create for
 * every reader (version 0, no tasks), dated `imported_at`, the time of the chunk that made it.
 */
export const CommunicationImportAdopted = CommunicationFields.extend({
  import_id: uuid,
  imported_at: z.string(),
});
export type CommunicationImportAdopted = z.infer<typeof CommunicationImportAdopted>;

export const CommunicationDeleted = z.object({ communication_id: uuid, medical_institution_id: uuid });
export type CommunicationDeleted = z.infer<typeof CommunicationDeleted>;

export const CommunicationCommentAdded = z.object({
  communication_id: uuid,
  comment_id: uuid,
  user_id: uuid,
  comment: z.string(),
});
export type CommunicationCommentAdded = z.infer<typeof CommunicationCommentAdded>;

export const CommunicationCommentEdited = z.object({ communication_id: uuid, comment_id: uuid, comment: z.string() });
export type CommunicationCommentEdited = z.infer<typeof CommunicationCommentEdited>;

export const CommunicationCommentDeleted = z.object({ communication_id: uuid, comment_id: uuid });
export type CommunicationCommentDeleted = z.infer<typeof CommunicationCommentDeleted>;

export const CommunicationLiked = z.object({ communication_id: uuid, user_id: uuid });
export type CommunicationLiked = z.infer<typeof CommunicationLiked>;

export const communicationEventSchemas = {
  CommunicationCreated,
  CommunicationImportAdopted,
  /** An edit carries the whole record, as the create does (its tasks excepted). */
  CommunicationUpdated: CommunicationFields,
  CommunicationDeleted,
  CommunicationCommentAdded,
  CommunicationCommentEdited,
  CommunicationCommentDeleted,
  CommunicationLiked,
  CommunicationUnliked: CommunicationLiked,
} as const;

/** A stored event of a communication stream as its typed union; anything else throws. */
export const parseCommunicationEvent = eventParser(communicationAggregate, communicationEventSchemas);

export const CommunicationLabelDefinition = z.object({
  label_id: uuid,
  name: z.string(),
  communication_type: CommunicationTypeData,
  component_type: LabelComponentTypeData,
  description: z.string(),
  selections: z.array(LabelSelectionData),
  is_required: z.boolean(),
});
export type CommunicationLabelDefinition = z.infer<typeof CommunicationLabelDefinition>;

export const CommunicationLabelDeleted = z.object({ label_id: uuid });
export type CommunicationLabelDeleted = z.infer<typeof CommunicationLabelDeleted>;

export const CommunicationLabelsReordered = z.object({ label_ids: z.array(uuid) });
export type CommunicationLabelsReordered = z.infer<typeof CommunicationLabelsReordered>;

export const communicationLabelEventSchemas = {
  CommunicationLabelCreated: CommunicationLabelDefinition,
  CommunicationLabelUpdated: CommunicationLabelDefinition,
  CommunicationLabelDeleted,
  CommunicationLabelsReordered,
} as const;

/** A stored event of a tenant's communication-label stream. */
export const parseCommunicationLabelEvent = eventParser(communicationLabelsAggregate, communicationLabelEventSchemas);
