import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { Database } from '@renkei/db';
import { formatPosition, parsePosition, type EventMetadata, type EventStore, type Position } from '@renkei/event-store';
import { identityDb, type IdentityDb } from '../db/identity.tables.ts';

/** One event waiting in `identity.outbox`, already parsed by its schema (no secret can be in it). */
export interface OutboxEvent {
  stream: string;
  type: string;
  data: unknown;
  metadata: EventMetadata;
}

interface OutboxRow {
  seq: string;
  id: string;
  stream: string;
  type: string;
  data: unknown;
  metadata: EventMetadata;
}

/**
 * Records an event in the caller's transaction, beside the row change it describes: both commit or
 * neither does. Returns the event id, fixed now, which makes the relay's append idempotent.
 */
export async function enqueueEvent(trx: IdentityDb, event: OutboxEvent): Promise<string> {
  const id = randomUUID();
  await trx
    .insertInto('identity.outbox')
    .values({
      id,
      stream: event.stream,
      type: event.type,
      data: JSON.stringify(event.data),
      metadata: JSON.stringify(event.metadata),
    })
    .execute();
  return id;
}

export interface OutboxRelayOptions {
  /** How often pending rows are looked for besides the wake-ups after local commits. */
  pollIntervalMs?: number;
  /** Called when an append or a bookkeeping write fails; the row is retried on a later pass. */
  onError?: (error: unknown) => void;
}

const batchSize = 100;

/**
 * Appends pending outbox rows to the event store in insertion order, per stream: a stream whose
 * row failed is left alone for the rest of the pass, so its later events never overtake it. Several
 * relays (replicas, or a CLI beside the server) may run at once: an append repeats the stored event
 * id, so a row appended twice is stored once, and a row is only marked after its append.
 *
 * Never holds a transaction: on the embedded database the store's append needs the one connection.
 */
export class OutboxRelay {
  private current: Promise<void> | undefined;
  private next: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private onError: ((error: unknown) => void) | undefined;

  constructor(
    private readonly db: Database,
    private readonly store: EventStore,
  ) {}

  /**
   * Starts polling and relays what a crash left behind at once. Without it the relay still works
   * on demand (`flush`, `publish`): a CLI command publishes its own events before it exits.
   */
  start(options: OutboxRelayOptions = {}): void {
    this.onError = options.onError;
    if (this.timer) return;
    this.timer = setInterval(() => void this.flush(), options.pollIntervalMs ?? 1000);
    this.timer.unref();
    void this.flush();
  }

  async stop(): Promise<void> {
    this.onError = undefined;
    clearInterval(this.timer);
    this.timer = undefined;
    await this.next;
    await this.current;
  }

  /**
   * Resolves after a pass that started after this call: everything committed before the call has
   * been tried. A pass already under way may have read before the caller's commit, so one more is queued.
   */
  flush(): Promise<void> {
    if (!this.current) {
      this.current = this.pass().finally(() => {
        this.current = undefined;
      });
      return this.current;
    }
    this.next ??= this.current.then(() => {
      this.next = undefined;
      return this.flush();
    });
    return this.next;
  }

  /**
   * Relays now and answers the position of the last of `ids` in the store, or undefined when one of
   * them could not be appended yet (the poll retries it; the caller's write is committed either way).
   */
  async publish(ids: readonly string[], timeoutMs = 5000): Promise<Position | undefined> {
    if (ids.length === 0) return undefined;
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), timeoutMs);
    });
    try {
      if ((await Promise.race([this.flush(), timedOut])) === 'timeout') return undefined;
    } finally {
      clearTimeout(timer);
    }
    const rows = await identityDb(this.db)
      .selectFrom('identity.outbox')
      .select(['seq', 'position'])
      .where('id', 'in', [...ids])
      .orderBy('seq', 'desc')
      .execute();
    if (rows.length !== ids.length || rows.some((r) => r.position === null)) return undefined;
    return parsePosition(String(rows[0]!.position)) ?? undefined;
  }

  private async pass(): Promise<void> {
    const blocked = new Set<string>();
    let after = '0';
    for (;;) {
      let rows: OutboxRow[];
      try {
        rows = (await identityDb(this.db)
          .selectFrom('identity.outbox')
          .select(['seq', 'id', 'stream', 'type', 'data', 'metadata'])
          .where('published_at', 'is', null)
          .where('seq', '>', after)
          .orderBy('seq')
          .limit(batchSize)
          .execute()) as OutboxRow[];
      } catch (error) {
        this.onError?.(error);
        return;
      }
      for (const row of rows) {
        after = String(row.seq);
        if (blocked.has(row.stream)) continue;
        try {
          const result = await this.store.append(
            row.stream,
            [{ id: row.id, type: row.type, data: row.data, metadata: row.metadata }],
            { expectedRevision: 'any' },
          );
          await identityDb(this.db)
            .updateTable('identity.outbox')
            .set({ published_at: sql`now()`, position: formatPosition(result.position), last_error: null })
            .where('id', '=', row.id)
            .execute();
        } catch (error) {
          blocked.add(row.stream);
          this.onError?.(error);
          await identityDb(this.db)
            .updateTable('identity.outbox')
            .set({ attempts: sql`attempts + 1`, last_error: String((error as Error)?.message ?? error).slice(0, 1000) })
            .where('id', '=', row.id)
            .execute()
            .catch(() => undefined);
        }
      }
      if (rows.length < batchSize) return;
    }
  }
}

const relays = new WeakMap<Database, WeakMap<EventStore, OutboxRelay>>();

/**
 * The one relay of this process for a database and store: the service's poller, its request handlers,
 * the ops commands and the demo seed share it, so their passes never run side by side.
 */
export function outboxRelay(deps: { db: Database; store: EventStore }): OutboxRelay {
  let byStore = relays.get(deps.db);
  if (!byStore) relays.set(deps.db, (byStore = new WeakMap()));
  let relay = byStore.get(deps.store);
  if (!relay) byStore.set(deps.store, (relay = new OutboxRelay(deps.db, deps.store)));
  return relay;
}

/** Published rows are kept a while for inspection, then removed by the identity sweeper. */
export async function deletePublishedOutboxRows(db: IdentityDb, olderThanDays = 7): Promise<void> {
  await db
    .deleteFrom('identity.outbox')
    .where('published_at', '<', sql<Date>`now() - make_interval(days => ${olderThanDays})`)
    .execute();
}
