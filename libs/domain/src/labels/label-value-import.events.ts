import { z } from 'zod';
import { eventParser } from '../event-union.ts';
import type { LabelValueData } from './label.events.ts';

/**
 * An import of institution label values from a CSV file: stream
 * `medical_institution_label_value_import-<import id>`. The uploaded file is kept unchanged under the
 * data directory (`stored_path`) and is the source of truth for a replay; the worker's reactor parses
 * it in chunks and records progress here.
 */
export const labelValueImportAggregate = 'medical_institution_label_value_import';

export const LabelValueImportRequested = z.object({
  import_id: z.string().uuid(),
  filename: z.string(),
  stored_path: z.string(),
  /** 'utf-8' | 'shift_jis'; null: detect from the bytes. */
  encoding: z.enum(['utf-8', 'shift_jis']).nullable(),
});
export type LabelValueImportRequested = z.infer<typeof LabelValueImportRequested>;

export const LabelValueImportRowError = z.object({ row_number: z.number().int().nullable(), message: z.string() });

/** One chunk of rows done (counts are for the chunk). */
export const LabelValueImportChunkProcessed = z.object({
  import_id: z.string().uuid(),
  chunk: z.number().int(),
  imported_row_count: z.number().int(),
  failed_row_count: z.number().int(),
  errors: z.array(LabelValueImportRowError),
});
export type LabelValueImportChunkProcessed = z.infer<typeof LabelValueImportChunkProcessed>;

const uuid = z.string().uuid();

/**
 * A label value as an import row carries it (label-value and communication imports): the fields its
 * label's type does not use are left out (a chunk event holds thousands of values) and read back as
 * null, or [] for `selection_ids`, so the decoded value is a `LabelValueData`.
 */
export const ImportedLabelValue = z.object({
  label_id: uuid,
  text_value: z.string().nullable().default(null),
  integer_value: z.number().int().nullable().default(null),
  date_value: z.string().nullable().default(null),
  time_value: z.string().nullable().default(null),
  selection_id: uuid.nullable().default(null),
  selection_ids: z.array(uuid).default([]),
  own_department_id: uuid.nullable().default(null),
  area_id: uuid.nullable().default(null),
}) satisfies z.ZodType<LabelValueData, unknown>;

/** One valid row of a file: the institution its code names and the values its non-empty cells set. */
const ImportedLabelValueRow = z.object({
  row_number: z.number().int(),
  medical_institution_id: uuid,
  values: z.array(ImportedLabelValue),
});
/** A row as the import writes it (unused fields left out). */
export type ImportedLabelValueRowInput = z.input<typeof ImportedLabelValueRow>;

/** A value without the fields its label's type leaves empty, as an import row carries it. */
export function compactLabelValue(value: LabelValueData): ImportedLabelValueRowInput['values'][number] {
  const compact: ImportedLabelValueRowInput['values'][number] = { label_id: value.label_id };
  if (value.text_value !== null) compact.text_value = value.text_value;
  if (value.integer_value !== null) compact.integer_value = value.integer_value;
  if (value.date_value !== null) compact.date_value = value.date_value;
  if (value.time_value !== null) compact.time_value = value.time_value;
  if (value.selection_id !== null) compact.selection_id = value.selection_id;
  if (value.selection_ids.length > 0) compact.selection_ids = value.selection_ids;
  if (value.own_department_id !== null) compact.own_department_id = value.own_department_id;
  if (value.area_id !== null) compact.area_id = value.area_id;
  return compact;
}

/**
 * One chunk of rows done, with the values its valid rows set, in file order: the chunk's record and
 * its facts in one event, so a chunk is never recorded without its rows nor its rows without it. The
 * CRM projection applies the rows in order over the values it holds (later rows and later events
 * win), and takes the values before each row from there for the history. Imports recorded before
 * this event existed wrote one `MedicalInstitutionLabelValuesChanged` per row on the institutions'
 * streams and a `LabelValueImportChunkProcessed` (docs/decisions.md, "Label-value imports record a
 * chunk as one facts event").
 */
export const MedicalInstitutionLabelValuesImported = LabelValueImportChunkProcessed.extend({
  rows: z.array(ImportedLabelValueRow),
});
export type MedicalInstitutionLabelValuesImported = z.infer<typeof MedicalInstitutionLabelValuesImported>;

export const LabelValueImportStarted = z.object({ import_id: z.string().uuid(), total_row_count: z.number().int() });
export type LabelValueImportStarted = z.infer<typeof LabelValueImportStarted>;

export const LabelValueImportFinished = z.object({
  import_id: z.string().uuid(),
  status: z.enum(['completed', 'failed']),
  imported_row_count: z.number().int(),
  failed_row_count: z.number().int(),
  unprocessed_row_count: z.number().int(),
  /** Where a file-level problem stopped the run. */
  abortion_row_number: z.number().int().nullable(),
  /** The file-level problem, when it failed. */
  error: LabelValueImportRowError.nullable(),
});
export type LabelValueImportFinished = z.infer<typeof LabelValueImportFinished>;

export type LabelValueImportEvent =
  | { type: 'LabelValueImportRequested'; data: LabelValueImportRequested }
  | { type: 'LabelValueImportStarted'; data: LabelValueImportStarted }
  | { type: 'LabelValueImportChunkProcessed'; data: LabelValueImportChunkProcessed }
  | { type: 'MedicalInstitutionLabelValuesImported'; data: MedicalInstitutionLabelValuesImported }
  | { type: 'LabelValueImportFinished'; data: LabelValueImportFinished };

/** A stored event of a label-value import stream as its typed union; anything else throws. */
export const parseLabelValueImportEvent = eventParser(labelValueImportAggregate, {
  LabelValueImportRequested,
  LabelValueImportStarted,
  LabelValueImportChunkProcessed,
  MedicalInstitutionLabelValuesImported,
  LabelValueImportFinished,
});
