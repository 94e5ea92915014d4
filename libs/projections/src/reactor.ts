import { sql } from 'kysely';
import type { Database } from '@renkei/db';
import { comparePositions, type EventStore, type Position, type RecordedEvent } from '@renkei/event-store';
import type { ProjectionLogger } from './projection-engine.ts';
import { migrateProjections } from './projections.migrations.ts';

export interface ReactorContext {
  db: Database;
  store: EventStore;
  logger?: ProjectionLogger | undefined;
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
}

export function defineReactor(reactor: Reactor): Reactor {
  if (!/^[a-z][a-z0-9_]{0,60}$/.test(reactor.name))
    throw new Error(`Reactor name "${reactor.name}" must be snake_case`);
  if (reactor.eventTypes.length === 0) throw new Error(`Reactor ${reactor.name}: no event types`);
  return reactor;
}

/** Runs each reactor in its own loop from its durable checkpoint. */
export function startReactors(options: ReactorContext & { reactors: readonly Reactor[]; pollIntervalMs?: number }): {
  stop(): Promise<void>;
} {
  const { db, store, logger } = options;
  const pollIntervalMs = options.pollIntervalMs ?? (db.kind === 'pglite' ? 100 : 50);
  let stopped = false;
  const wakers = new Set<() => void>();
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        wakers.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      wakers.add(done);
    });

  const loops = options.reactors.map(async (reactor) => {
    let failures = 0;
    let position: Position | null = null;
    while (!stopped) {
      try {
        if (!position) {
          await migrateProjections(db);
          position = await loadOrCreateCheckpoint(db, store, reactor);
        }
        const page = await store.readAll(position, { limit: reactor.batchSize ?? 100, types: reactor.eventTypes });
        if (page.events.length > 0) await reactor.handle(page.events, { db, store, logger });
        if (comparePositions(page.next, position) > 0) {
          await sql`
            UPDATE rm.reactor_checkpoints
               SET position_primary = ${page.next.primary.toString()}::numeric,
                   position_secondary = ${page.next.secondary.toString()}::numeric,
                   events_processed = events_processed + ${page.events.length},
                   updated_at = now(), last_error = NULL
             WHERE name = ${reactor.name}
          `.execute(db.kysely);
          position = page.next;
        }
        failures = 0;
        if (page.events.length === 0) await sleep(pollIntervalMs);
      } catch (error) {
        if (stopped) break;
        failures += 1;
        logger?.error({ err: error, reactor: reactor.name }, 'reactor failed; retrying the batch');
        const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
        await sql`UPDATE rm.reactor_checkpoints SET last_error = ${message.slice(0, 2000)} WHERE name = ${reactor.name}`
          .execute(db.kysely)
          .catch(() => undefined);
        await sleep(Math.min(30_000, pollIntervalMs * 2 ** Math.min(failures, 10)));
      }
    }
  });

  return {
    async stop() {
      stopped = true;
      for (const wake of [...wakers]) wake();
      await Promise.all(loops);
    },
  };
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
