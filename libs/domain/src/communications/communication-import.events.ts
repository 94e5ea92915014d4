import { z } from 'zod';
import { eventParser } from '../event-union.ts';
import { CommunicationFields } from './communication.events.ts';
import {
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

export const CommunicationsImported = z.object({
  import_id: z.string().uuid(),
  /** The records in file order (tasks: none; an import makes none). */
  records: z.array(CommunicationFields),
});
export type CommunicationsImported = z.infer<typeof CommunicationsImported>;

export const communicationImportRowsEventSchemas = { CommunicationsImported } as const;

/** A stored event of a chunk's rows stream; anything else throws. */
export const parseCommunicationImportRowsEvent = eventParser(
  communicationImportRowsAggregate,
  communicationImportRowsEventSchemas,
);
