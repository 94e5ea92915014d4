import type { Database } from '@renkei/db';
import { comparePositions, type EventStore, type Position } from '@renkei/event-store';
import { createProjectionEngine, type ProjectionLogger } from './projection-engine.ts';
import type { Projection } from './projection.ts';
import { migrateProjections } from './projections.migrations.ts';
import { createLoopWaits } from './loop-waits.ts';

export interface StartProjectionsOptions {
  db: Database;
  store: EventStore;
  projections: readonly Projection<any>[];
  logger?: ProjectionLogger | undefined;
  /** Events per transaction (at most 1000). */
  batchSize?: number | undefined;
  /** Wait between polls once a projection has caught up. */
  pollIntervalMs?: number | undefined;
  /**
   * The idle wait instead, where every append that matters wakes the loops at once (one process owns
   * the writes: the embedded default); back-offs after errors still start from `pollIntervalMs`.
   */
  idlePollIntervalMs?: number | undefined;
  /**
   * Least time between two reads of one projection while it follows a busy store: appends arriving
   * inside it are taken in one batch, so 500 commands/s cost each projection at most 100 reads and
   * checkpoint commits per second, not 500, for at most this much added lag.
   */
  minReadIntervalMs?: number | undefined;
}

/**
 * Runs every projection in its own loop: catch up in batches, rebuild on a version bump or a
 * rebuild request, then follow new events. Safe to run in several processes at once (checkpoints
 * are compared-and-set inside each batch's transaction).
 */
export function startProjections(options: StartProjectionsOptions): { stop(): Promise<void> } {
  assertUniqueNames(options.projections);
  const engine = createProjectionEngine(options);
  const pollIntervalMs = options.pollIntervalMs ?? (options.db.kind === 'pglite' ? 50 : 25);
  const idlePollIntervalMs = options.idlePollIntervalMs ?? pollIntervalMs;
  const minReadIntervalMs = options.minReadIntervalMs ?? 10;
  let stopped = false;
  const waits = createLoopWaits(options.store);
  const sleep = waits.sleep;

  const migrated = (async () => {
    for (let attempt = 0; !stopped; attempt++) {
      try {
        await migrateProjections(options.db);
        return true;
      } catch (error) {
        options.logger?.error({ err: error }, 'projections: migration failed; retrying');
        await sleep(Math.min(10_000, 500 * 2 ** attempt));
      }
    }
    return false;
  })();

  const loops = options.projections.map(async (p) => {
    if (!(await migrated)) return;
    let failures = 0;
    let lastReadAt = 0;
    while (!stopped) {
      try {
        const sinceLastRead = performance.now() - lastReadAt;
        if (sinceLastRead < minReadIntervalMs) await sleep(minReadIntervalMs - sinceLastRead);
        if (stopped) break;
        lastReadAt = performance.now();
        const appendsBefore = waits.appends();
        const worked = await engine.step(p);
        failures = 0;
        if (!worked && waits.appends() === appendsBefore) await waits.idle(idlePollIntervalMs);
      } catch (error) {
        if (stopped) break;
        failures += 1;
        options.logger?.error({ err: error, projection: p.name }, 'projection batch failed; retrying');
        await engine.recordError(p, error).catch(() => undefined);
        await sleep(Math.min(30_000, pollIntervalMs * 2 ** Math.min(failures, 10)));
      }
    }
  });

  return {
    async stop() {
      stopped = true;
      waits.stop();
      await Promise.all(loops);
      await migrated;
    },
  };
}

/**
 * Runs the projections until none has anything left to do (created, rebuilt and switched, caught
 * up). With `until`, also waits until every projection has passed that position: an appended event
 * becomes visible to readers only once every older transaction has finished. For tests, scripts
 * and benchmarks; errors are thrown, not retried.
 */
export async function catchUpProjections(
  options: Omit<StartProjectionsOptions, 'pollIntervalMs' | 'idlePollIntervalMs'> & {
    until?: Position;
    timeoutMs?: number;
  },
): Promise<void> {
  assertUniqueNames(options.projections);
  await migrateProjections(options.db);
  const engine = createProjectionEngine(options);
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  for (;;) {
    for (const p of options.projections) {
      while (await engine.step(p)) {
        // keep going until a step finds nothing to do
      }
    }
    if (!options.until) return;
    let pending = false;
    for (const p of options.projections) {
      const rows = await engine.loadRows(p.name);
      const live = rows.find((r) => r.state === 'live');
      const mine = rows.some((r) => r.version === p.version);
      if (mine && (!live || rows.length > 1 || comparePositions(live.position, options.until) < 0)) pending = true;
    }
    if (!pending) return;
    if (Date.now() > deadline) throw new Error('catchUpProjections: timed out before reaching the position');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

function assertUniqueNames(projections: readonly Projection<any>[]): void {
  const names = new Set<string>();
  const tables = new Set<string>();
  for (const p of projections) {
    if (names.has(p.name)) throw new Error(`Projection ${p.name} is registered twice`);
    names.add(p.name);
    for (const t of p.tables) {
      if (tables.has(t)) throw new Error(`Read-model table ${t} belongs to two projections`);
      tables.add(t);
    }
  }
}
