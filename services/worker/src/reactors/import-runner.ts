import fs from 'node:fs';
import { parse } from 'csv-parse';
import iconv from 'iconv-lite';
import type { Database } from '@renkei/db';
import { detectEncoding } from '@renkei/institution-master';
import {
  readStreamOrEmpty,
  streamId,
  WrongExpectedRevisionError,
  type EventMetadata,
  type EventStore,
  type RecordedEvent,
  type StreamAppend,
} from '@renkei/event-store';
import { defineReactor } from '@renkei/projections';
import {
  createImportQueue,
  ImportInterruptedError,
  type ImportQueueOptions,
  type ImportRunControl,
} from './import-queue.ts';

/**
 * Characters Postgres cannot store in text or jsonb (NUL), other C0/C1 controls except tab and line
 * breaks (a textarea value may hold those), and UTF-16 halves without their partner.
 */
const unstorable =
  // eslint-disable-next-line no-control-regex -- matching control characters is the point
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const unstorableAll = new RegExp(unstorable.source, 'g');

/** Whether a cell holds a character that no event may carry. */
export function hasUnstorableCharacter(cell: string): boolean {
  return unstorable.test(cell);
}

/** A message for the user that quotes file content: the characters no event may carry are dropped. */
export function storable(text: string): string {
  return text.replace(unstorableAll, '');
}

export interface RowError {
  row_number: number | null;
  message: string;
}

/** A row left out, by its number, with every problem it has. */
export const rowError = (rowNumber: number, problems: string[]): RowError & { row_number: number } => ({
  row_number: rowNumber,
  message: storable(`${rowNumber}行目: ${problems.join('、')}`),
});

/** What the runner needs of one event of an import's stream, read through the import's schema. */
interface JournalEntry {
  /** The import is over (finished, or deleted where an import can be). */
  ended?: boolean;
  /** The started event's row count. */
  total?: number;
  /** A chunk event's place and counts. */
  chunk?: { chunk: number; imported_row_count: number; failed_row_count: number };
}

/** The types of the events of `E` whose data is a `D`. */
type TypesWithData<E, D> = E extends { type: infer T; data: D } ? T : never;

/** The data of the event that requests an import. */
type RequestData<E, R> = (E extends { type: R; data: infer D } ? D : never) & { import_id: string };

interface ChunkCounts {
  chunk: number;
  imported_row_count: number;
  failed_row_count: number;
}

/**
 * An import's journal from its event union: which event requests it, starts it, records a chunk and
 * ends it, every one read through the import's own parser (an unknown event fails loudly).
 */
export function importJournal<
  E extends { type: string; data: unknown },
  R extends TypesWithData<E, { import_id: string }>,
>(spec: {
  aggregate: string;
  parse(event: RecordedEvent): E;
  eventId(importId: string, ...parts: (string | number)[]): string;
  requestedType: R;
  startedType: TypesWithData<E, { total_row_count: number }>;
  finishedType: E['type'];
  /** The finished event, and any other after which the import is over. */
  endedTypes: readonly E['type'][];
  chunkTypes: readonly TypesWithData<E, ChunkCounts>[];
}): ImportJournal<RequestData<E, R>> {
  // The constraints on the type names make these guards hold: each names the events of one data shape.
  const isRequest = (e: E): e is E & { data: RequestData<E, R> } => e.type === spec.requestedType;
  const isStart = (e: E): e is E & { data: { total_row_count: number } } => e.type === spec.startedType;
  const isChunk = (e: E): e is E & { data: ChunkCounts } => (spec.chunkTypes as readonly string[]).includes(e.type);
  return {
    aggregate: spec.aggregate,
    startedType: spec.startedType,
    finishedType: spec.finishedType,
    eventId: spec.eventId,
    request(requested) {
      const event = spec.parse(requested);
      if (!isRequest(event)) throw new Error(`${requested.type} does not start an import`);
      return event.data;
    },
    read(event) {
      const e = spec.parse(event);
      if (spec.endedTypes.includes(e.type)) return { ended: true };
      if (isStart(e)) return { total: e.data.total_row_count };
      if (isChunk(e)) return { chunk: e.data };
      return {};
    },
  };
}

/** How an import records itself on its own stream. */
export interface ImportJournal<Request extends { import_id: string }> {
  aggregate: string;
  startedType: string;
  finishedType: string;
  /** Event ids derive from the import and their place in it, so a rerun appends nothing twice. */
  eventId(importId: string, ...parts: (string | number)[]): string;
  read(event: RecordedEvent): JournalEntry;
  /** The upload the run starts from, read through its schema. */
  request(requested: RecordedEvent): Request;
}

/** What `work` made of one chunk: its row counts and errors, and the appends of its rows. */
export interface ChunkOutcome {
  /** Type of the chunk event. */
  type: string;
  imported: number;
  failed: number;
  errors: RowError[];
  /** More of the chunk event's data (the records of a facts event, the ids a create import made). */
  data?: Record<string, unknown>;
  /**
   * The rows' appends: they go with the chunk event in one `appendMany`, so a chunk costs one
   * statement and is recorded with its rows. An append refused for a stale revision (someone changed
   * that stream meanwhile) is handed to `redo`, after the chunk is recorded; a run cut short there
   * runs the chunk again (`replayLastChunk`).
   */
  appends?: StreamAppend[];
  redo?(index: number): Promise<void>;
}

/** The failure message of an import parked after repeated failures. */
const unexpectedFailure =
  '取り込み中に予期しないエラーが発生したため中断しました。ファイルの内容を確認して、もう一度取り込んでください。';

const alone: ImportRunControl = { turn: (work) => work() };

/**
 * One run of one import. Chunks already recorded by an earlier run (cut short by a stop, a crash or
 * a failure) are skipped with their recorded counts, so a run resumes where the last one stopped and
 * appends nothing twice (every event id is derived). Between chunks it yields to requests and to
 * other imports, and a stop ends it before the next chunk.
 */
export class ImportRun<Request extends { import_id: string } = { import_id: string }> {
  readonly importId: string;
  readonly tenantId: string;
  readonly metadata: EventMetadata;
  /** Data rows of the file, for the unprocessed count when the run stops early. */
  total = 0;
  imported = 0;
  failed = 0;
  private chunkIndex = 0;
  private readonly stream: string;

  /** Chunks handled so far, recorded by this run or an earlier one. */
  get chunks(): number {
    return this.chunkIndex;
  }

  private constructor(
    private readonly store: EventStore,
    private readonly journal: ImportJournal<Request>,
    readonly request: Request,
    requested: RecordedEvent,
    private readonly recorded: Map<number, { imported_row_count: number; failed_row_count: number }>,
    private readonly replayLastChunk: boolean,
    readonly control: ImportRunControl,
  ) {
    this.importId = request.import_id;
    this.tenantId = requested.metadata.tenant_id;
    this.stream = streamId(journal.aggregate, this.importId);
    this.metadata = importMetadata(requested, this.importId);
  }

  /** The run of `requested`, or null when the import is already over. */
  static async open<Request extends { import_id: string }>(
    store: EventStore,
    requested: RecordedEvent,
    journal: ImportJournal<Request>,
    options: { control?: ImportRunControl; replayLastChunk?: boolean } = {},
  ): Promise<ImportRun<Request> | null> {
    const request = journal.request(requested);
    const history = await readImportHistory(store, requested, journal, request.import_id);
    if (history.ended) return null;
    return new ImportRun(
      store,
      journal,
      request,
      requested,
      history.chunks,
      options.replayLastChunk ?? false,
      options.control ?? alone,
    );
  }

  private record(id: string, type: string, data: unknown) {
    return this.store.append(this.stream, [{ id, type, data, metadata: this.metadata }], { expectedRevision: 'any' });
  }

  /** Records the start, with the file's data rows. */
  async start(total: number): Promise<void> {
    this.total = total;
    await this.record(this.journal.eventId(this.importId, 'started'), this.journal.startedType, {
      import_id: this.importId,
      total_row_count: total,
    });
  }

  /**
   * The next chunk: `work` runs on the import's turn and its outcome is recorded, unless an earlier
   * run recorded this chunk (then its counts are taken from the record; the last recorded one runs
   * again, without being recorded twice, when the run replays it).
   *
   * With `after` (the previous chunk's `chunk` call), `work` runs at once, beside the previous chunk's
   * append, and only the recording waits for it and for the turn: chunks are still recorded one after
   * the other in file order (a later row wins), and a stop still falls between two recorded chunks.
   * Only for `work` that reads nothing the previous chunks write.
   */
  async chunk(work: () => Promise<ChunkOutcome>, after?: Promise<unknown>): Promise<void> {
    if (this.control.signal?.aborted) throw new ImportInterruptedError();
    const chunk = this.chunkIndex++;
    const done = this.recorded.get(chunk);
    if (done) {
      await after;
      this.imported += done.imported_row_count;
      this.failed += done.failed_row_count;
      // Its redo may have been cut short: its rows' appends are idempotent, so it runs again.
      if (this.replayLastChunk && !this.recorded.has(chunk + 1))
        await this.control.turn(async () => this.apply(await work(), null));
      return;
    }
    const record = async (outcome: ChunkOutcome) => {
      this.imported += outcome.imported;
      this.failed += outcome.failed;
      await this.apply(outcome, {
        stream: this.stream,
        events: [
          {
            id: this.journal.eventId(this.importId, 'chunk', chunk),
            type: outcome.type,
            data: {
              import_id: this.importId,
              chunk,
              imported_row_count: outcome.imported,
              failed_row_count: outcome.failed,
              errors: outcome.errors,
              ...outcome.data,
            },
            metadata: this.metadata,
          },
        ],
        expectedRevision: 'any',
      });
    };
    if (after) {
      const outcome = await work();
      await after;
      await this.control.turn(() => record(outcome));
    } else await this.control.turn(async () => record(await work()));
    // Let requests and other imports in between chunks.
    await new Promise((resolve) => setImmediate(resolve));
  }

  /** The rows' appends and the chunk event (last: if the statement falls back to one append at a time, it goes after the rows). */
  private async apply(outcome: ChunkOutcome, chunkEvent: StreamAppend | null): Promise<void> {
    const appends = [...(outcome.appends ?? []), ...(chunkEvent ? [chunkEvent] : [])];
    if (appends.length === 0) return;
    const results = await this.store.appendMany(appends);
    const chunkResult = chunkEvent ? results.pop()! : null;
    if (chunkResult && !chunkResult.ok) throw chunkResult.error;
    for (const [i, result] of results.entries()) {
      if (result.ok) continue;
      if (!(result.error instanceof WrongExpectedRevisionError) || !outcome.redo) throw result.error;
      await outcome.redo(i);
    }
  }

  /** Records the end: `completed`, or `failed` at a row (0: the file as a whole) with the message for the user. */
  async finish(status: 'completed' | 'failed', abortion: number | null, error: string | null): Promise<void> {
    await this.record(this.journal.eventId(this.importId, 'finished'), this.journal.finishedType, {
      import_id: this.importId,
      status,
      imported_row_count: this.imported,
      failed_row_count: this.failed,
      unprocessed_row_count: status === 'completed' ? 0 : Math.max(this.total - this.imported - this.failed, 0),
      abortion_row_number: abortion,
      error: error ? { row_number: abortion, message: storable(error) } : null,
    });
  }
}

const importMetadata = (requested: RecordedEvent, importId: string): EventMetadata => ({
  tenant_id: requested.metadata.tenant_id,
  account_id: requested.metadata.account_id,
  correlation_id: importId,
  causation_id: requested.id,
  schema_version: 1,
});

async function readImportHistory<Request extends { import_id: string }>(
  store: EventStore,
  requested: RecordedEvent,
  journal: ImportJournal<Request>,
  importId: string,
) {
  const events = await readStreamOrEmpty(store, streamId(journal.aggregate, importId), requested.metadata.tenant_id);
  const chunks = new Map<number, { imported_row_count: number; failed_row_count: number }>();
  let ended = false;
  let total = 0;
  for (const e of events.map((event) => journal.read(event))) {
    if (e.ended) ended = true;
    if (e.total !== undefined) total = e.total;
    if (e.chunk) chunks.set(e.chunk.chunk, e.chunk);
  }
  return { ended, total, chunks };
}

/** Marks an import that failed for good as failed, with the rows its recorded chunks counted. */
async function failImport<Request extends { import_id: string }>(
  store: EventStore,
  requested: RecordedEvent,
  journal: ImportJournal<Request>,
): Promise<void> {
  const { import_id: importId } = journal.request(requested);
  const history = await readImportHistory(store, requested, journal, importId);
  if (history.ended) return;
  const chunks = [...history.chunks.values()];
  const imported = chunks.reduce((n, c) => n + c.imported_row_count, 0);
  const failed = chunks.reduce((n, c) => n + c.failed_row_count, 0);
  await store.append(
    streamId(journal.aggregate, importId),
    [
      {
        id: journal.eventId(importId, 'finished'),
        type: journal.finishedType,
        data: {
          import_id: importId,
          status: 'failed',
          imported_row_count: imported,
          failed_row_count: failed,
          unprocessed_row_count: Math.max(history.total - imported - failed, 0),
          abortion_row_number: null,
          error: { row_number: null, message: unexpectedFailure },
        },
        metadata: importMetadata(requested, importId),
      },
    ],
    { expectedRevision: 'any' },
  );
}

/**
 * The reactor of an import: each upload becomes a job of its import queue (per tenant, round-robin by
 * chunk, parked after repeated failures; see import-queue.ts), which runs beside the reactor loop and
 * stops with it; an import parked for good is recorded failed with the rows counted so far.
 */
export function createImportReactor<Request extends { import_id: string }>(options: {
  name: string;
  eventType: string;
  journal: ImportJournal<Request>;
  run(db: Database, store: EventStore, requested: RecordedEvent, control: ImportRunControl): Promise<void>;
  queue?: Pick<ImportQueueOptions, 'maxAttempts' | 'retryBaseMs' | 'chunkSlots' | 'maxActive' | 'pollIntervalMs'>;
}) {
  const queue = createImportQueue({
    ...options.queue,
    name: options.name,
    run: (event, control, ctx) => options.run(ctx.db, ctx.store, event, control),
    onParked: (event, _error, ctx) => failImport(ctx.store, event, options.journal),
  });
  return defineReactor({
    name: options.name,
    eventTypes: [options.eventType],
    handle: (events, ctx) => queue.enqueue(events, ctx),
    background: (ctx) => queue.background(ctx),
  });
}

/** Lines of a file, a last one without a line break included (line breaks inside quoted cells aside). */
async function countLines(filePath: string): Promise<number> {
  let lines = 0;
  let lastByte = 0x0a;
  for await (const chunk of fs.createReadStream(filePath) as AsyncIterable<Buffer>) {
    for (const b of chunk) if (b === 0x0a) lines++;
    lastByte = chunk[chunk.length - 1] ?? lastByte;
  }
  return lastByte !== 0x0a ? lines + 1 : lines;
}

/** Cells are compared as the user means them: full-width and half-width alike, no surrounding spaces. */
export const nfkc = (s: string) => s.normalize('NFKC').trim();

/** Rows per chunk of a CSV import: progress is recorded after each. */
const csvChunkSize = 500;

export interface CsvRow {
  /** 1-based data row number (the header is row 0): what the row's ids derive from. */
  rowNumber: number;
  /**
   * The row as a spreadsheet shows it, the header being row 1: what a row error names, as the referral
   * lists' errors do (docs/decisions.md, "Row numbers in import errors").
   */
  sheetRow: number;
  cells: string[];
}

/**
 * A CSV import's loop: the run's start is recorded with the file's data rows (header aside), then the
 * file is parsed streamed, in its encoding (detected when the upload did not name one), in chunks of
 * rows handed to `chunk`; `header` reads the first row and answers a message when the file cannot be
 * imported (the run stops there).
 * A broken file (unbalanced quotes, undecodable bytes) keeps the rows before it and stops at its row;
 * a failure while applying a chunk is the store's, not the file's, and fails the run (the queue tries
 * again and the run resumes).
 */
export async function importCsvRows(
  run: ImportRun<{ import_id: string }>,
  options: {
    path: string;
    encoding: 'utf-8' | 'shift_jis' | null;
    header(cells: string[]): string | null;
    chunk(rows: CsvRow[]): Promise<ChunkOutcome>;
    /** Rows per chunk (default 500); fixed for an import, since a resumed run finds its chunks by number. */
    chunkSize?: number;
    /**
     * Reads and prepares the next chunk while the previous one is recorded (`ImportRun.chunk`'s
     * `after`): only for a `chunk` that reads nothing the earlier chunks write.
     */
    prepareAhead?: boolean;
  },
): Promise<void> {
  await run.start(Math.max((await countLines(options.path)) - 1, 0));
  const encoding = options.encoding ?? ((await detectEncoding(options.path)) === 'utf8' ? 'utf-8' : 'shift_jis');
  const parser = fs
    .createReadStream(options.path)
    .pipe(iconv.decodeStream(encoding === 'utf-8' ? 'utf8' : 'cp932'))
    .pipe(parse({ bom: true, relax_column_count: true, skip_empty_lines: true, delimiter: [',', '\t'] }));
  let headerRead = false;
  let rowNumber = -1;
  let pending: CsvRow[] = [];
  // With `prepareAhead`, the chunk being recorded while the next one is read and prepared.
  let recording: Promise<void> | null = null;
  const applyChunk = async () => {
    const rows = pending;
    pending = [];
    if (!options.prepareAhead) return run.chunk(() => options.chunk(rows));
    const previous = recording;
    const current = run.chunk(() => options.chunk(rows), previous ?? Promise.resolve());
    // Awaited by the next chunk (or below); a failure surfaces there, never unhandled.
    current.catch(() => undefined);
    recording = current;
    // At most one chunk recorded while one is prepared: the file is read no further ahead.
    if (previous) await previous;
  };
  /** The last chunk handed over is recorded (prepareAhead). */
  const recorded = async () => {
    const last = recording;
    recording = null;
    if (last) await last;
  };
  let readingFailed: unknown = null;
  try {
    for await (const cells of parser as AsyncIterable<string[]>) {
      rowNumber++;
      if (!headerRead) {
        const error = options.header(cells);
        if (error !== null) {
          parser.destroy();
          return await run.finish('failed', 1, error); // the header: row 1
        }
        headerRead = true;
        continue;
      }
      pending.push({ rowNumber, sheetRow: rowNumber + 1, cells });
      if (pending.length >= (options.chunkSize ?? csvChunkSize)) {
        // Parsing pauses while the chunk is applied (with prepareAhead: while the one before it is).
        try {
          await applyChunk();
        } catch (error) {
          parser.destroy();
          throw Object.assign(new Error('apply failed'), { applyError: error });
        }
      }
    }
  } catch (error) {
    const applyError = (error as { applyError?: unknown }).applyError;
    if (applyError !== undefined) throw applyError;
    readingFailed = error;
  }
  if (readingFailed !== null) {
    if (pending.length > 0) await applyChunk();
    await recorded();
    // The row after the last one read, as a spreadsheet numbers it.
    return await run.finish(
      'failed',
      rowNumber + 2,
      `${rowNumber + 2}行目でファイルを読み取れませんでした: ${(readingFailed as Error).message}`,
    );
  }
  // No row to name: the file as a whole (shown as 「ファイル: …」).
  if (!headerRead) return await run.finish('failed', null, 'ファイルにデータがありません');
  if (pending.length > 0) await applyChunk();
  await recorded();
  await run.finish('completed', null, null);
}
