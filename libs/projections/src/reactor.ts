import { setMaxListeners } from 'node:events';
import { sql } from 'kysely';
import type { Database } from '@renkei/db';
import { comparePositions, type EventStore, type Position, type RecordedEvent } from '@renkei/event-store';
import type { ProjectionLogger } from './projection-engine.ts';
import { migrateProjections } from './projections.migrations.ts';
import { createLoopWaits } from './loop-waits.ts';

export interface ReactorContext {
  db: Database;
  store: EventStore;
  logger?: ProjectionLogger | undefined;
  /** Aborts when the reactors stop: a handler that waits (for a projection, say) gives up at once. */
  signal?: AbortSignal | undefined;
}

/**
 * Reacts to events with side effects (parse an import, send a mail, append follow-up events).
 * Delivery is at-least-once: the checkpoint advances after `handle` returns, so a crash repeats the
 * batch. Handlers must be idempotent (append follow-ups with ids derived from the cause's id).
 */
export interface Reactor {
  readonly name: string;
  readonly eventTypes: readonly string[];
  /** Events per call (default 100). */
  readonly batchSize?: number;
  /**
   * Where a reactor seen for the first time begins: `beginning` (default) reacts to the whole
   * history; `head` only to what happens from its first start on (for side effects such as mails).
   */
  readonly startAt?: 'beginning' | 'head';
  handle(events: RecordedEvent[], ctx: ReactorContext): Promise<void>;
  /**
   * Tries of one event before it is parked (default 5): recorded in `rm.reactor_parked_events`,
   * logged at error level, handed to `onParked`, and passed, so one event that can never succeed
   * does not stop the reactor for every tenant.
   */
  readonly maxAttempts?: number;
  /** Called once for a parked event (report it to the user: mark the import failed); errors are logged. */
  onParked?(event: RecordedEvent, error: unknown, ctx: ReactorContext): Promise<void>;
  /**
   * Long-running work beside the event loop (a job queue fed by `handle`), started with the reactor
   * and expected to return soon after `signal` aborts.
   */
  background?(ctx: ReactorContext & { signal: AbortSignal }): Promise<void>;
}

export function defineReactor(reactor: Reactor): Reactor {
  if (!/^[a-z][a-z0-9_]{0,60}$/.test(reactor.name))
    throw new Error(`Reactor name "${reactor.name}" must be snake_case`);
  if (reactor.eventTypes.length === 0) throw new Error(`Reactor ${reactor.name}: no event types`);
  return reactor;
}

const parkedTableReady = new WeakSet<Database>();

/** Records a parked event of a reactor or job queue (tenant, event id, error) for ops to look at. */
export async function recordParkedEvent(
  db: Database,
  reactor: string,
  event: Pick<RecordedEvent, 'id' | 'type' | 'metadata'>,
  error: unknown,
): Promise<void> {
  if (!parkedTableReady.has(db)) {
    await migrateProjections(db);
    parkedTableReady.add(db);
  }
  await sql`INSERT INTO rm.reactor_parked_events (reactor, event_id, event_type, tenant_id, error)
    VALUES (${reactor}, ${event.id}, ${event.type}, ${event.metadata.tenant_id}, ${describeError(error).slice(0, 2000)})
    ON CONFLICT (reactor, event_id) DO UPDATE SET error = excluded.error, parked_at = now()`.execute(db.kysely);
}

function describeError(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

/** Runs each reactor in its own loop from its durable checkpoint. */
export function startReactors(
  options: ReactorContext & {
    reactors: readonly Reactor[];
    pollIntervalMs?: number;
    /** The wait of a caught-up loop, as the projection runner's `idlePollIntervalMs`. */
    idlePollIntervalMs?: number | undefined;
  },
): {
  stop(): Promise<void>;
} {
  const { db, store, logger } = options;
  const pollIntervalMs = options.pollIntervalMs ?? (db.kind === 'pglite' ? 100 : 50);
  const idlePollIntervalMs = options.idlePollIntervalMs ?? pollIntervalMs;
  let stopped = false;
  const waits = createLoopWaits(store);
  const sleep = waits.sleep;

  const abort = new AbortController();
  // Every background loop's sleep and every handler waiting for a projection holds one listener on this
  // signal and removes it when done, so their number follows the reactors registered (over ten in the
  // embedded install), not time: Node's warning at eleven would report a leak that is not one.
  setMaxListeners(0, abort.signal);
  const ctx: ReactorContext = { db, store, logger, signal: abort.signal };
  const backgrounds = options.reactors.flatMap((reactor) =>
    reactor.background
      ? [
          (async () => {
            await migrateProjections(db);
            await reactor.background!({ ...ctx, signal: abort.signal });
          })().catch((error: unknown) => {
            if (!abort.signal.aborted)
              logger?.error({ err: error, reactor: reactor.name }, 'reactor background stopped');
          }),
        ]
      : [],
  );

  const loops = options.reactors.map(async (reactor) => {
    const maxAttempts = Math.max(1, reactor.maxAttempts ?? 5);
    let failures = 0;
    // After a batch failed its tries, its events are retried one at a time up to its last one, so only
    // the culprit is parked.
    let singlyUntil: Position | null = null;
    let position: Position | null = null;
    const advance = async (next: Position, processed: number) => {
      await sql`
        UPDATE rm.reactor_checkpoints
           SET position_primary = ${next.primary.toString()}::numeric,
               position_secondary = ${next.secondary.toString()}::numeric,
               events_processed = events_processed + ${processed},
               updated_at = now(), last_error = NULL
         WHERE name = ${reactor.name}
      `.execute(db.kysely);
      position = next;
    };
    while (!stopped) {
      let page: Awaited<ReturnType<EventStore['readAll']>> | null = null;
      const appendsBefore = waits.appends();
      try {
        if (!position) {
          await migrateProjections(db);
          position = await loadOrCreateCheckpoint(db, store, reactor);
        }
        page = await store.readAll(position, {
          limit: singlyUntil ? 1 : (reactor.batchSize ?? 100),
          types: reactor.eventTypes,
        });
        if (page.events.length > 0) await reactor.handle(page.events, ctx);
        if (comparePositions(page.next, position) > 0) await advance(page.next, page.events.length);
        if (singlyUntil && comparePositions(position, singlyUntil) >= 0) singlyUntil = null;
        failures = 0;
        if (page.events.length === 0 && waits.appends() === appendsBefore) await waits.idle(idlePollIntervalMs);
      } catch (error) {
        if (stopped) break;
        failures += 1;
        const message = describeError(error);
        await sql`UPDATE rm.reactor_checkpoints SET last_error = ${message.slice(0, 2000)} WHERE name = ${reactor.name}`
          .execute(db.kysely)
          .catch(() => undefined);
        const events = page?.events ?? [];
        if (failures >= maxAttempts && events.length > 1) {
          logger?.warn({ err: error, reactor: reactor.name }, 'reactor batch failed; retrying its events one by one');
          singlyUntil = events[events.length - 1]!.position;
          failures = 0;
          continue;
        }
        if (failures >= maxAttempts && events.length === 1 && page) {
          const event = events[0]!;
          logger?.error(
            { err: error, reactor: reactor.name, tenant_id: event.metadata.tenant_id, event_id: event.id },
            'reactor parked an event that kept failing',
          );
          try {
            await recordParkedEvent(db, reactor.name, event, error);
            await reactor.onParked?.(event, error, ctx);
            await advance(maxPosition(page.next, event.position), 1);
            if (singlyUntil && comparePositions(event.position, singlyUntil) >= 0) singlyUntil = null;
            failures = 0;
            continue;
          } catch (parkError) {
            logger?.error({ err: parkError, reactor: reactor.name }, 'reactor could not park the event; retrying');
          }
        } else {
          logger?.error({ err: error, reactor: reactor.name }, 'reactor failed; retrying the batch');
        }
        await sleep(Math.min(30_000, pollIntervalMs * 2 ** Math.min(failures, 10)));
      }
    }
  });

  return {
    async stop() {
      stopped = true;
      abort.abort();
      waits.stop();
      await Promise.all([...loops, ...backgrounds]);
    },
  };
}

function maxPosition(a: Position, b: Position): Position {
  return comparePositions(a, b) >= 0 ? a : b;
}

async function loadOrCreateCheckpoint(db: Database, store: EventStore, reactor: Reactor): Promise<Position> {
  const name = reactor.name;
  const head = reactor.startAt === 'head' ? await store.headPosition() : { primary: 0n, secondary: 0n };
  await sql`
    INSERT INTO rm.reactor_checkpoints (name, position_primary, position_secondary)
    VALUES (${name}, ${head.primary.toString()}::numeric, ${head.secondary.toString()}::numeric)
    ON CONFLICT (name) DO NOTHING
  `.execute(db.kysely);
  const { rows } = await sql<{ position_primary: string; position_secondary: string }>`
    SELECT position_primary::text, position_secondary::text FROM rm.reactor_checkpoints WHERE name = ${name}
  `.execute(db.kysely);
  const row = rows[0]!;
  return { primary: BigInt(row.position_primary), secondary: BigInt(row.position_secondary) };
}
