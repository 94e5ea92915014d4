import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type pg from 'pg';
import {
  createBatcher,
  migrateModule,
  preparedStatement,
  refusedByServer,
  settle,
  type Database,
  type Settled,
} from '@renkei/db';
import { AppendGuardRefusedError, StreamNotFoundError, WrongExpectedRevisionError } from '../errors.ts';
import { pollingSubscription } from '../polling-subscription.ts';
import type {
  AppendGuard,
  AppendOutcome,
  AppendResult,
  EventMetadata,
  EventStore,
  ExpectedRevision,
  NewEvent,
  Position,
  ReadAllResult,
  RecordedEvent,
  StreamAppend,
} from '../types.ts';
import { listenForAppends } from './append-listener.ts';
import { eventStoreMigrations } from './postgres-event-store.migrations.ts';

export interface PostgresEventStoreOptions {
  /** How often subscriptions poll for events appended by other processes. */
  pollIntervalMs?: number;
  /**
   * Group commit: how many append statements may run at once (default 1: measured best here, since a
   * batch costs little more than a lone append and everything that waits for it leaves in the next).
   */
  maxBatchesInFlight?: number;
  /**
   * Whether followers of this store hear other processes' appends at once (LISTEN on a connection of
   * its own; default on PostgreSQL). Off: they find them at their next poll.
   */
  listen?: boolean;
}

const UNIQUE_VIOLATION = '23505';
const MAX_READ = 10_000;

interface AppendRow {
  kind: 'head' | 'existing' | 'inserted' | 'refused';
  stream_id: string;
  revision: number;
  tenant_id: string;
  transaction_id: string;
  global_position: string;
  /** What a guard said when it refused (batch statement only). */
  detail?: unknown;
}

/**
 * One statement, so one round trip and atomic without an explicit transaction: the function
 * (migration 0002) reads the stream's head and any already-stored ids, and inserts only when no id
 * is stored, the expected revision matches and the stream belongs to the same tenant. The unique
 * constraints guard the race between two writers that both saw the same head.
 */
const APPEND_SQL = `
  SELECT kind, stream_id, revision, tenant_id, transaction_id, global_position
    FROM es.append_events($1, $2::uuid[], $3::text[], $4::text[], $5::text[], $6::uuid[], $7::text, $8::int, $9::uuid,
                          $10::uuid[])`;

const APPEND_BATCH_SQL = `
  SELECT item, kind, stream_id, revision, tenant_id, transaction_id, global_position, detail
    FROM es.append_batch($1::json, $2::json)`;

/** Appends per group-commit statement: enough to empty the queue of a busy process, few enough to stay a short transaction. */
const MAX_BATCH = 64;
/**
 * Events per `appendMany` statement: an import chunk's appends leave in one statement, and a larger
 * call is split so no transaction holds many thousand rows' locks for long.
 */
const MAX_MANY_EVENTS = 4_000;

const READ_STREAM_SQL = `
  SELECT global_position, transaction_id::text, stream_id, revision, event_id, type, data, metadata,
              tenant_id::text, created_at
         FROM es.events WHERE stream_id = $1 ORDER BY revision`;
// The unique (stream_id, revision) index finds the stream; the type is checked on the row, so the
// other events' payloads are never read out or sent.
const READ_STREAM_TYPES_SQL = `
  SELECT global_position, transaction_id::text, stream_id, revision, event_id, type, data, metadata,
              tenant_id::text, created_at
         FROM es.events WHERE stream_id = $1 AND type = ANY($2::text[]) ORDER BY revision`;

// One statement, so the page and the head come from the same snapshot. Every row a snapshot sees is
// final: appends draw positions in commit order (migration 0005), so none can still commit below it.
const READ_ALL_SQL = `WITH page AS (
         SELECT e.global_position, e.transaction_id, e.stream_id, e.revision, e.event_id, e.type, e.data,
                e.metadata, e.created_at
           FROM es.events e
          WHERE (e.transaction_id, e.global_position) > ($1::text::xid8, $2::bigint)
            AND ($3::text[] IS NULL OR e.type = ANY($3::text[]))
          ORDER BY e.transaction_id, e.global_position
          LIMIT $4
       ),
       head AS (
         SELECT e.global_position, e.transaction_id
           FROM es.events e
          ORDER BY e.transaction_id DESC, e.global_position DESC
          LIMIT 1
       )
       SELECT false AS is_head, global_position, transaction_id::text, stream_id, revision, event_id, type, data,
              metadata, created_at
         FROM page
       UNION ALL
       SELECT true, global_position, transaction_id::text, NULL, NULL, NULL, NULL, NULL, NULL, NULL FROM head`;

/** How the append functions take an expected revision: a kind, and the number for 'exact'. */
function expectation(expected: ExpectedRevision): { expectedKind: string; expectedRevision: number | null } {
  return typeof expected === 'number'
    ? { expectedKind: 'exact', expectedRevision: expected }
    : { expectedKind: expected, expectedRevision: null };
}

function lastOf(rows: AppendRow[]): AppendResult {
  const last = rows.reduce((a, b) => (b.revision > a.revision ? b : a));
  return { revision: last.revision, position: toPosition(last.transaction_id, last.global_position) };
}

interface EventRow {
  global_position: string | number | bigint;
  transaction_id: string | number | bigint;
  stream_id: string;
  revision: number;
  event_id: string;
  type: string;
  data: unknown;
  metadata: EventMetadata;
  created_at: Date | string;
}

/**
 * The default event store: one `es.events` table. Global order is the pair (epoch, global position),
 * with positions drawn in commit order (migration 0005; rows stored before it keep their writing
 * transaction's id as the first half), so whatever a reader sees is final and no other transaction,
 * of this database or another, delays it.
 */
export async function createPostgresEventStore(
  db: Database,
  options: PostgresEventStoreOptions = {},
): Promise<EventStore> {
  await migrateModule(db.kysely, 'event_store', eventStoreMigrations);
  const pool = db.pool;
  // Named on a real server, so even the function call is planned once per connection.
  const appendStatement = preparedStatement(db, 'es_append_v2', APPEND_SQL);
  const appendBatchStatement = preparedStatement(db, 'es_append_batch_v1', APPEND_BATCH_SQL);
  const maxBatchesInFlight = Math.max(1, options.maxBatchesInFlight ?? 1);
  const readStreamStatement = preparedStatement(db, 'es_read_stream_v1', READ_STREAM_SQL);
  const readStreamTypesStatement = preparedStatement(db, 'es_read_stream_types_v1', READ_STREAM_TYPES_SQL);
  const pollIntervalMs = options.pollIntervalMs ?? (db.kind === 'pglite' ? 50 : 25);
  // Appends in this process wake this process's subscriptions at once; others find them by polling.
  const appended = new EventEmitter();
  appended.setMaxListeners(0);

  interface PendingAppend {
    stream: string;
    events: NewEvent[];
    ids: string[];
    expected: ExpectedRevision;
    tenantId: string;
    guard: AppendGuard | undefined;
  }

  const appendParameters = (a: PendingAppend) => ({
    types: a.events.map((e) => e.type),
    data: a.events.map((e) => JSON.stringify(e.data ?? null)),
    metadata: a.events.map((e) => JSON.stringify(e.metadata)),
    tenants: a.events.map((e) => e.metadata.tenant_id),
    ...expectation(a.expected),
    // Only ids the caller chose can be stored already.
    lookupIds: a.events.flatMap((e) => (e.id ? [e.id] : [])),
  });

  /** What one append's rows mean: its result, or the error the caller gets. */
  function interpret(a: PendingAppend, rows: AppendRow[]): AppendResult {
    const refused = rows.find((r) => r.kind === 'refused');
    if (refused) throw new AppendGuardRefusedError(a.stream, refused.detail);
    const inserted = rows.filter((r) => r.kind === 'inserted');
    if (inserted.length > 0) return lastOf(inserted);
    const head = rows.find((r) => r.kind === 'head');
    const existing = rows.filter((r) => r.kind === 'existing');
    if (existing.length === a.ids.length && existing.every((r) => r.stream_id === a.stream)) return lastOf(existing);
    if (existing.length === 0 && head && head.tenant_id !== a.tenantId) throw new StreamNotFoundError(a.stream);
    // Part of the batch (or an id of another stream) stored, or the revision did not match.
    throw new WrongExpectedRevisionError(a.stream, a.expected, head?.revision ?? null);
  }

  /** A unique violation: a concurrent writer stored these very events (an idempotent retry) or another revision. */
  async function raced(a: PendingAppend): Promise<AppendResult> {
    const original = await findOriginal(pool, a.stream, a.ids);
    if (original) return original;
    throw new WrongExpectedRevisionError(a.stream, a.expected, await currentRevision(pool, a.stream));
  }

  async function appendOne(a: PendingAppend): Promise<AppendResult> {
    // A guard runs only in the batch statement.
    if (a.guard) {
      const [outcome] = await appendTogether([a]);
      if (!outcome!.ok) throw outcome!.error;
      return outcome!.value;
    }
    const p = appendParameters(a);
    let rows: AppendRow[];
    try {
      rows = (
        await pool.query<AppendRow>(
          appendStatement([
            a.stream,
            a.ids,
            p.types,
            p.data,
            p.metadata,
            p.tenants,
            p.expectedKind,
            p.expectedRevision,
            a.tenantId,
            p.lookupIds,
          ]),
        )
      ).rows;
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      return raced(a);
    }
    if (rows.some((r) => r.kind === 'inserted')) appended.emit('append');
    return interpret(a, rows);
  }

  async function appendBatch(batch: PendingAppend[]): Promise<Settled<AppendResult>[]> {
    // One item per stream in a statement: a later append to a stream of the batch follows it alone.
    const streams = new Set<string>();
    const together: number[] = [];
    const after: number[] = [];
    batch.forEach((a, i) => {
      if (streams.has(a.stream)) after.push(i);
      else {
        streams.add(a.stream);
        together.push(i);
      }
    });
    const outcomes: Settled<AppendResult>[] = new Array(batch.length);
    if (together.length === 1) outcomes[together[0]!] = await settle(() => appendOne(batch[together[0]!]!));
    else {
      const settled = await appendTogether(together.map((i) => batch[i]!));
      together.forEach((i, k) => (outcomes[i] = settled[k]!));
    }
    for (const i of after) outcomes[i] = await settle(() => appendOne(batch[i]!));
    return outcomes;
  }

  /** Appends to distinct streams in one statement. */
  async function appendTogether(batch: PendingAppend[]): Promise<Settled<AppendResult>[]> {
    let rows: (AppendRow & { item: number })[];
    let n = 0;
    const items = batch.map((a, i) => {
      const { expectedKind, expectedRevision } = expectation(a.expected);
      return {
        item: i + 1,
        stream: a.stream,
        expected_kind: expectedKind,
        expected: expectedRevision,
        tenant: a.tenantId,
        guard: a.guard?.fn ?? null,
        guard_arg: a.guard?.argument ?? null,
      };
    });
    const events = batch.flatMap((a, i) =>
      a.events.map((e, offset) => ({
        item: i + 1,
        event_offset: offset,
        id: a.ids[offset],
        type: e.type,
        data: e.data ?? null,
        metadata: e.metadata,
        tenant: e.metadata.tenant_id,
        lookup: e.id !== undefined,
        n: ++n,
      })),
    );
    try {
      rows = (
        await pool.query<AppendRow & { item: number }>(
          appendBatchStatement([JSON.stringify(items), JSON.stringify(events)]),
        )
      ).rows;
    } catch (error) {
      // Refused, so nothing of the batch is stored: each append is tried on its own, which confines a
      // race (or a bad value) to the append it belongs to. Without the server's answer the batch may
      // have committed, and the error reaches every caller instead.
      if (!refusedByServer(error)) throw error;
      if (batch.length === 1)
        return [await settle(() => (isUniqueViolation(error) ? raced(batch[0]!) : Promise.reject(error)))];
      const outcomes: Settled<AppendResult>[] = [];
      for (const a of batch) outcomes.push(await settle(() => appendOne(a)));
      return outcomes;
    }
    const byItem = new Map<number, AppendRow[]>();
    for (const row of rows) {
      const list = byItem.get(row.item);
      if (list) list.push(row);
      else byItem.set(row.item, [row]);
    }
    if (rows.some((r) => r.kind === 'inserted')) appended.emit('append');
    return Promise.all(batch.map((a, i) => settle(async () => interpret(a, byItem.get(i + 1) ?? []))));
  }

  const appendBatched = createBatcher({
    maxInFlight: maxBatchesInFlight,
    maxBatch: MAX_BATCH,
    gatherTurn: db.kind === 'pglite',
    run: appendBatch,
  });

  async function append(
    stream: string,
    events: NewEvent[],
    options: { expectedRevision: ExpectedRevision; guard?: AppendGuard },
  ): Promise<AppendResult> {
    if (events.length === 0) throw new Error('append: no events');
    return appendBatched({
      stream,
      events,
      ids: events.map((e) => e.id ?? randomUUID()),
      expected: options.expectedRevision,
      tenantId: events[0]!.metadata.tenant_id.toLowerCase(),
      guard: options.guard,
    });
  }

  /**
   * Many streams in one statement (es.append_batch, without the group-commit queue): the appends go in
   * rounds of distinct streams (a stream's second append of the call waits for the next round), each
   * round in statements of at most MAX_MANY_EVENTS events.
   */
  async function appendMany(appends: readonly StreamAppend[]): Promise<AppendOutcome[]> {
    const outcomes: AppendOutcome[] = new Array(appends.length);
    const rounds: number[][] = [];
    const seen = new Map<string, number>();
    appends.forEach((a, i) => {
      if (a.events.length === 0) {
        outcomes[i] = { ok: false, error: new Error('append: no events') };
        return;
      }
      const round = seen.get(a.stream) ?? 0;
      seen.set(a.stream, round + 1);
      (rounds[round] ??= []).push(i);
    });
    const pending = (a: StreamAppend): PendingAppend => ({
      stream: a.stream,
      events: a.events,
      ids: a.events.map((e) => e.id ?? randomUUID()),
      expected: a.expectedRevision,
      tenantId: a.events[0]!.metadata.tenant_id.toLowerCase(),
      guard: undefined,
    });
    for (const round of rounds) {
      let start = 0;
      while (start < round.length) {
        let end = start;
        let events = 0;
        while (end < round.length && (end === start || events + appends[round[end]!]!.events.length <= MAX_MANY_EVENTS))
          events += appends[round[end++]!]!.events.length;
        const slice = round.slice(start, end);
        const settled = await appendTogether(slice.map((i) => pending(appends[i]!)));
        slice.forEach((i, k) => (outcomes[i] = settled[k]!));
        start = end;
      }
    }
    return outcomes;
  }

  async function readStream(
    stream: string,
    options: { tenantId: string; types?: readonly string[] },
  ): Promise<RecordedEvent[]> {
    const { rows } = await pool.query<EventRow & { tenant_id: string }>(
      options.types ? readStreamTypesStatement([stream, [...options.types]]) : readStreamStatement([stream]),
    );
    if (rows.length === 0 || rows[0]!.tenant_id !== options.tenantId.toLowerCase()) {
      throw new StreamNotFoundError(stream);
    }
    return rows.map(toRecordedEvent);
  }

  async function readStreams(
    streams: readonly string[],
    options: { tenantId: string },
  ): Promise<Map<string, RecordedEvent[]>> {
    const result = new Map<string, RecordedEvent[]>();
    if (streams.length === 0) return result;
    const { rows } = await pool.query<EventRow & { tenant_id: string }>(
      `SELECT global_position, transaction_id::text, stream_id, revision, event_id, type, data, metadata,
              tenant_id::text, created_at
         FROM es.events WHERE stream_id = ANY($1::text[]) ORDER BY stream_id, revision`,
      [[...new Set(streams)]],
    );
    const tenant = options.tenantId.toLowerCase();
    for (const row of rows) {
      if (row.tenant_id !== tenant) continue;
      const list = result.get(row.stream_id);
      const event = toRecordedEvent(row);
      if (list) list.push(event);
      else result.set(row.stream_id, [event]);
    }
    return result;
  }

  async function readAll(
    from: Position,
    options: { limit?: number; types?: readonly string[] } = {},
  ): Promise<ReadAllResult> {
    const limit = Math.max(1, Math.min(options.limit ?? 1000, MAX_READ));
    const types = options.types ? [...options.types] : null;
    // Left unnamed: a generic plan cannot see the cursor or the limit, and a poll plans it only 40 times a second.
    const { rows } = await pool.query<EventRow & { is_head: boolean }>(READ_ALL_SQL, [
      from.primary.toString(),
      from.secondary.toString(),
      types,
      limit,
    ]);
    const events = rows.filter((r) => !r.is_head).map(toRecordedEvent);
    events.sort((a, b) => comparePair(a.position, b.position));
    const headRow = rows.find((r) => r.is_head);
    let next = from;
    if (events.length === limit) {
      next = events[events.length - 1]!.position;
    } else if (headRow) {
      // Fewer than asked: everything visible up to the head has been seen (or filtered out).
      const head = toPosition(headRow.transaction_id, headRow.global_position);
      if (comparePair(head, next) > 0) next = head;
    }
    return { events, next };
  }

  async function headPosition(): Promise<Position> {
    const { rows } = await pool.query<{ transaction_id: string; global_position: string }>(
      // Qualified: a bare name in ORDER BY is the output column, here text, and '9' > '25'.
      `SELECT e.transaction_id::text, e.global_position::text
         FROM es.events e
        ORDER BY e.transaction_id DESC, e.global_position DESC
        LIMIT 1`,
    );
    const row = rows[0];
    return row ? toPosition(row.transaction_id, row.global_position) : { primary: 0n, secondary: 0n };
  }

  async function countAfter(from: Position): Promise<number> {
    const { rows } = await pool.query<{ n: string }>(
      `SELECT count(*)::text AS n FROM es.events
        WHERE (transaction_id, global_position) > ($1::text::xid8, $2::bigint)`,
      [from.primary.toString(), from.secondary.toString()],
    );
    return Number(rows[0]?.n ?? 0);
  }

  // Appends of other processes on the same server (the separate services) are heard too, through one
  // LISTEN connection opened when something first follows the store. PGlite has one process.
  let otherProcesses: { stop(): Promise<void> } | null = null;
  const hearsOtherProcesses = db.kind === 'postgres' && db.url !== undefined && options.listen !== false;

  function onAppend(listener: () => void): () => void {
    if (hearsOtherProcesses) otherProcesses ??= listenForAppends(db.url!, pool, () => appended.emit('append'));
    appended.on('append', listener);
    return () => appended.off('append', listener);
  }

  return {
    append,
    appendMany,
    supportsGuards: true,
    countAfter,
    onAppend,
    readStream,
    readStreams,
    readAll,
    headPosition,
    subscribe(from, handler, options = {}) {
      return pollingSubscription(from, handler, {
        readAll,
        pollIntervalMs: options.pollIntervalMs ?? pollIntervalMs,
        batchSize: options.batchSize ?? 500,
        types: options.types,
        onError: options.onError,
        ...(options.wakeOnLocalAppend === false ? {} : { onLocalAppend: onAppend }),
      });
    },
    hearsOtherProcesses,
    async close() {
      appended.removeAllListeners();
      await otherProcesses?.stop();
    },
  };
}

async function findOriginal(pool: pg.Pool, stream: string, ids: string[]): Promise<AppendResult | null> {
  const { rows } = await pool.query<{
    stream_id: string;
    revision: number;
    transaction_id: string;
    global_position: string;
  }>(
    `SELECT stream_id, revision, transaction_id::text, global_position::text FROM es.events WHERE event_id = ANY($1::uuid[])`,
    [ids],
  );
  if (rows.length !== ids.length || rows.some((r) => r.stream_id !== stream)) return null;
  const last = rows.reduce((a, b) => (b.revision > a.revision ? b : a));
  return { revision: last.revision, position: toPosition(last.transaction_id, last.global_position) };
}

async function currentRevision(pool: pg.Pool, stream: string): Promise<number | null> {
  const { rows } = await pool.query<{ revision: number | null }>(
    'SELECT max(revision) AS revision FROM es.events WHERE stream_id = $1',
    [stream],
  );
  return rows[0]?.revision ?? null;
}

function isUniqueViolation(error: unknown): boolean {
  return (error as { code?: string } | null)?.code === UNIQUE_VIOLATION;
}

function toPosition(transactionId: string | number | bigint, globalPosition: string | number | bigint): Position {
  return { primary: BigInt(transactionId), secondary: BigInt(globalPosition) };
}

function comparePair(a: Position, b: Position): number {
  if (a.primary !== b.primary) return a.primary < b.primary ? -1 : 1;
  if (a.secondary !== b.secondary) return a.secondary < b.secondary ? -1 : 1;
  return 0;
}

function toRecordedEvent(row: EventRow): RecordedEvent {
  return {
    id: row.event_id,
    stream: row.stream_id,
    revision: row.revision,
    position: toPosition(row.transaction_id, row.global_position),
    type: row.type,
    data: typeof row.data === 'string' ? JSON.parse(row.data) : row.data,
    metadata: (typeof row.metadata === 'string' ? JSON.parse(row.metadata) : row.metadata) as EventMetadata,
    created_at: row.created_at instanceof Date ? row.created_at : new Date(row.created_at),
  };
}
