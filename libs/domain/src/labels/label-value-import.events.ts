import { z } from 'zod';
import { eventParser } from '../event-union.ts';

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
  | { type: 'LabelValueImportFinished'; data: LabelValueImportFinished };

/** A stored event of a label-value import stream as its typed union; anything else throws. */
export const parseLabelValueImportEvent = eventParser(labelValueImportAggregate, {
  LabelValueImportRequested,
  LabelValueImportStarted,
  LabelValueImportChunkProcessed,
  LabelValueImportFinished,
});
