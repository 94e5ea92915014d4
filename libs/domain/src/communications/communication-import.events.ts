import { z } from 'zod';
import { eventParser } from '../event-union.ts';
import { CommunicationTypeData, type CommunicationFields } from './communication.events.ts';
import {
  ImportedLabelValue,
  LabelValueImportChunkProcessed,
  LabelValueImportFinished,
  LabelValueImportRequested,
  LabelValueImportStarted,
} from '../labels/label-value-import.events.ts';

/**
 * An import of communications from a CSV file: stream `communication_import-<import id>`. The same
 * record, progress and row errors as a label-value import (the same payloads, plus the mode and the
 * records each chunk created, which an undo removes). The file is kept unchanged at `stored_path`.
 */
export const communicationImportAggregate = 'communication_import';

export const CommunicationImportRequested = LabelValueImportRequested.extend({
  /** create: every row is a new record (POST); update: every row names a record by its id (PUT). */
  mode: z.enum(['create', 'update']),
});
export type CommunicationImportRequested = z.infer<typeof CommunicationImportRequested>;

export const CommunicationImportStarted = LabelValueImportStarted;
export type CommunicationImportStarted = z.infer<typeof CommunicationImportStarted>;

export const CommunicationImportChunkProcessed = LabelValueImportChunkProcessed.extend({
  /**
   * Create mode: records this chunk created (an undo deletes them). Update mode: records its rows
   * named and applied (an undo restores what the import changed in them); empty in imports recorded
   * before undo restored values.
   */
  communication_ids: z.array(z.string().uuid()),
  /**
   * Create mode since imports record their rows per chunk: the id of the chunk's
   * `communication_import_rows-<id>` stream, whose one `CommunicationsImported` holds the records.
   * Absent: the chunk's records have streams of their own (imports begun before, and update mode).
   */
  rows_id: z.string().uuid().optional(),
});
export type CommunicationImportChunkProcessed = z.infer<typeof CommunicationImportChunkProcessed>;

export const CommunicationImportFinished = LabelValueImportFinished;
export type CommunicationImportFinished = z.infer<typeof CommunicationImportFinished>;

/** The import was undone: the records it created are deleted and the record leaves the history. */
export const CommunicationImportDeleted = z.object({ import_id: z.string().uuid() });
export type CommunicationImportDeleted = z.infer<typeof CommunicationImportDeleted>;

export const communicationImportEventSchemas = {
  CommunicationImportRequested,
  CommunicationImportStarted,
  CommunicationImportChunkProcessed,
  CommunicationImportFinished,
  CommunicationImportDeleted,
} as const;

/** A stored event of a communication import stream as its typed union; anything else throws. */
export const parseCommunicationImportEvent = eventParser(communicationImportAggregate, communicationImportEventSchemas);

/**
 * The records one chunk of a create import made: stream `communication_import_rows-<id>` (the id is
 * derived from the import and the chunk), one event, appended in one statement with the chunk's
 * `CommunicationImportChunkProcessed`. An imported record has no stream of its own until its first
 * write, which begins that stream with `CommunicationImportAdopted` (docs/decisions.md, "Communication
 * imports record a chunk as one event").
 */
export const communicationImportRowsAggregate = 'communication_import_rows';

const uuid = z.string().uuid();

/**
 * An imported record as its chunk carries it: empty fields (null, '', [], false) are left out, which
 * halves a chunk's event, and read back as they were, so the decoded record is a `CommunicationFields`.
 */
export const ImportedCommunication = z.object({
  communication_id: uuid,
  medical_institution_id: uuid,
  communication_type: CommunicationTypeData,
  acted_date: z.string(),
  category: z.string().nullable().default(null),
  purpose: z.string().nullable().default(null),
  story: z.string().default(''),
  event_name: z.string().nullable().default(null),
  memo: z.string().default(''),
  other_memo: z.string().default(''),
  person_in_charge_hospital: z.string().nullable().default(null),
  attendee: z.string().nullable().default(null),
  is_doctor_attended: z.boolean().default(false),
  user_id: uuid,
  attachment_ids: z.array(uuid).default([]),
  label_values: z.array(ImportedLabelValue).default([]),
}) satisfies z.ZodType<CommunicationFields, unknown>;
type ImportedCommunicationInput = z.input<typeof ImportedCommunication>;

/** A record without its empty fields, as a chunk carries it. */
export function compactCommunication(f: CommunicationFields): ImportedCommunicationInput {
  const c: ImportedCommunicationInput = {
    communication_id: f.communication_id,
    medical_institution_id: f.medical_institution_id,
    communication_type: f.communication_type,
    acted_date: f.acted_date,
    user_id: f.user_id,
  };
  if (f.category !== null) c.category = f.category;
  if (f.purpose !== null) c.purpose = f.purpose;
  if (f.story !== '') c.story = f.story;
  if (f.event_name !== null) c.event_name = f.event_name;
  if (f.memo !== '') c.memo = f.memo;
  if (f.other_memo !== '') c.other_memo = f.other_memo;
  if (f.person_in_charge_hospital !== null) c.person_in_charge_hospital = f.person_in_charge_hospital;
  if (f.attendee !== null) c.attendee = f.attendee;
  if (f.is_doctor_attended) c.is_doctor_attended = true;
  if (f.attachment_ids.length > 0) c.attachment_ids = f.attachment_ids;
  if (f.label_values.length > 0)
    c.label_values = f.label_values.map((v) => {
      const compact: NonNullable<ImportedCommunicationInput['label_values']>[number] = { label_id: v.label_id };
      if (v.text_value !== null) compact.text_value = v.text_value;
      if (v.integer_value !== null) compact.integer_value = v.integer_value;
      if (v.date_value !== null) compact.date_value = v.date_value;
      if (v.time_value !== null) compact.time_value = v.time_value;
      if (v.selection_id !== null) compact.selection_id = v.selection_id;
      if (v.selection_ids.length > 0) compact.selection_ids = v.selection_ids;
      if (v.own_department_id !== null) compact.own_department_id = v.own_department_id;
      if (v.area_id !== null) compact.area_id = v.area_id;
      return compact;
    });
  return c;
}

export const CommunicationsImported = z.object({
  import_id: z.string().uuid(),
  /** The records in file order (tasks: none; an import makes none). */
  records: z.array(ImportedCommunication),
});
export type CommunicationsImported = z.infer<typeof CommunicationsImported>;

export const communicationImportRowsEventSchemas = { CommunicationsImported } as const;

/** A stored event of a chunk's rows stream; anything else throws. */
export const parseCommunicationImportRowsEvent = eventParser(
  communicationImportRowsAggregate,
  communicationImportRowsEventSchemas,
);
