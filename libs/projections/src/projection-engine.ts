import { sql, type Transaction } from 'kysely';
import type { Database } from '@renkei/db';
import { comparePositions, type EventStore, type Position, type RecordedEvent } from '@renkei/event-store';
import { physicalTables, type Projection } from './projection.ts';

export interface ProjectionLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

export interface CheckpointRow {
  readonly name: string;
  readonly suffix: string;
  readonly version: number;
  readonly state: 'live' | 'rebuilding';
  readonly tables: string[];
  /** Advanced in place after each committed batch (the cached copy follows the database). */
  position: Position;
  events_processed: number;
}

/** Another worker moved the checkpoint between our read and our write: re-read and carry on. */
class CheckpointMoved extends Error {}

const MAX_BATCH = 1000;
const REFRESH_MS = 1000;

/**
 * The state machine of projections, one step at a time. Every change of rows, tables or views
 * happens in one transaction together with the checkpoint that records it, so a process killed at
 * any moment resumes exactly where the last commit left it.
 */
export function createProjectionEngine(options: {
  db: Database;
  store: EventStore;
  batchSize?: number | undefined;
  logger?: ProjectionLogger | undefined;
}) {
  const { db, store, logger } = options;
  const batchSize = Math.max(1, Math.min(options.batchSize ?? MAX_BATCH, MAX_BATCH));
  const warnedNewer = new Set<string>();

  async function loadRows(name: string, trx?: Transaction<unknown>): Promise<CheckpointRow[]> {
    const { rows } = await sql<{
      name: string;
      suffix: string;
      version: number;
      state: 'live' | 'rebuilding';
      tables: string[] | string;
      position_primary: string;
      position_secondary: string;
      events_processed: string;
    }>`
      SELECT name, suffix, version, state, tables, position_primary::text, position_secondary::text,
             events_processed::text
        FROM rm.projection_checkpoints WHERE name = ${name}
    `.execute(trx ?? db.kysely);
    return rows.map((r) => ({
      name: r.name,
      suffix: r.suffix,
      version: r.version,
      state: r.state,
      tables: parseTextArray(r.tables),
      position: { primary: BigInt(r.position_primary), secondary: BigInt(r.position_secondary) },
      events_processed: Number(r.events_processed),
    }));
  }

  async function lockProjection(trx: Transaction<unknown>, name: string): Promise<void> {
    await sql`SELECT pg_advisory_xact_lock(hashtext(${`projection:${name}`}))`.execute(trx);
  }

  async function createViews(trx: Transaction<unknown>, tables: readonly string[], suffix: string): Promise<void> {
    for (const table of tables) {
      // DROP + CREATE, not CREATE OR REPLACE: a new version may change columns.
      await sql`DROP VIEW IF EXISTS ${sql.table(`rm.${table}`)}`.execute(trx);
      await sql`CREATE VIEW ${sql.table(`rm.${table}`)} AS SELECT * FROM ${sql.table(`rm.${table}_${suffix}`)}`.execute(
        trx,
      );
    }
  }

  /** First start of a projection: build it in place and serve it at once (it catches up as it goes). */
  async function initialise(p: Projection): Promise<void> {
    const suffix = `v${p.version}`;
    await db.kysely.transaction().execute(async (trx) => {
      await lockProjection(trx, p.name);
      if ((await loadRows(p.name, trx)).length > 0) return;
      await dropTables(trx, p.tables, suffix);
      await p.setup(trx, physicalTables(p, suffix));
      await createViews(trx, p.tables, suffix);
      await sql`
        INSERT INTO rm.projection_checkpoints (name, suffix, version, state, tables)
        VALUES (${p.name}, ${suffix}, ${p.version}, 'live', ${sql.val(p.tables)}::text[])
      `.execute(trx);
    });
    logger?.info({ projection: p.name, version: p.version }, 'projection created');
  }

  async function beginBuild(p: Projection, suffix: string): Promise<void> {
    await db.kysely.transaction().execute(async (trx) => {
      await lockProjection(trx, p.name);
      if ((await loadRows(p.name, trx)).some((r) => r.state === 'rebuilding' || r.suffix === suffix)) return;
      await dropTables(trx, p.tables, suffix);
      await p.setup(trx, physicalTables(p, suffix));
      await sql`
        INSERT INTO rm.projection_checkpoints (name, suffix, version, state, tables)
        VALUES (${p.name}, ${suffix}, ${p.version}, 'rebuilding', ${sql.val(p.tables)}::text[])
      `.execute(trx);
      await sql`
        UPDATE rm.projection_rebuild_requests SET started_at = now()
         WHERE name = ${p.name} AND started_at IS NULL
      `.execute(trx);
    });
    logger?.info({ projection: p.name, version: p.version, suffix }, 'projection rebuild started');
  }

  async function abandonBuild(p: Projection, row: CheckpointRow): Promise<void> {
    await db.kysely.transaction().execute(async (trx) => {
      await lockProjection(trx, p.name);
      await dropTables(trx, row.tables, row.suffix);
      await sql`DELETE FROM rm.projection_checkpoints WHERE name = ${p.name} AND suffix = ${row.suffix}`.execute(trx);
      await sql`DELETE FROM rm.projection_parked_tenants WHERE name = ${p.name} AND suffix = ${row.suffix}`.execute(
        trx,
      );
    });
    logger?.warn({ projection: p.name, suffix: row.suffix }, 'abandoned an outdated rebuild');
  }

  async function switchOver(p: Projection, built: CheckpointRow): Promise<void> {
    await db.kysely.transaction().execute(async (trx) => {
      await lockProjection(trx, p.name);
      const rows = await loadRows(p.name, trx);
      const current = rows.find((r) => r.suffix === built.suffix && r.state === 'rebuilding');
      if (!current) return;
      const old = rows.find((r) => r.state === 'live');
      await createViews(trx, current.tables, current.suffix);
      if (old) {
        for (const table of old.tables) {
          if (!current.tables.includes(table)) await sql`DROP VIEW IF EXISTS ${sql.table(`rm.${table}`)}`.execute(trx);
        }
        await dropTables(trx, old.tables, old.suffix);
        await sql`DELETE FROM rm.projection_checkpoints WHERE name = ${p.name} AND suffix = ${old.suffix}`.execute(trx);
        await sql`DELETE FROM rm.projection_parked_tenants WHERE name = ${p.name} AND suffix = ${old.suffix}`.execute(
          trx,
        );
      }
      await sql`
        UPDATE rm.projection_checkpoints SET state = 'live', updated_at = now()
         WHERE name = ${p.name} AND suffix = ${current.suffix}
      `.execute(trx);
      await sql`
        UPDATE rm.projection_rebuild_requests SET completed_at = now()
         WHERE name = ${p.name} AND started_at IS NOT NULL AND completed_at IS NULL
      `.execute(trx);
    });
    logger?.info({ projection: p.name, version: built.version, suffix: built.suffix }, 'projection switched over');
  }

  /** Applies the next batch to one build. `caughtUp`: nothing more was visible after it. */
  async function processBatch(p: Projection, row: CheckpointRow): Promise<{ advanced: boolean; caughtUp: boolean }> {
    const from = row.position;
    const limit = Math.min(batchSize, p.maxBatchEvents ?? batchSize);
    const page = await store.readAll(from, { limit, types: p.eventTypes });
    const caughtUp = page.events.length < limit;
    if (comparePositions(page.next, from) <= 0) return { advanced: false, caughtUp };
    if (page.events.length === 0) {
      // Only events of other types went by: moving the checkpoint is one compare-and-set statement
      // instead of a four-round-trip transaction, which every projection pays for every foreign event.
      const moved = await sql`
        UPDATE rm.projection_checkpoints
           SET position_primary = ${page.next.primary.toString()}::numeric,
               position_secondary = ${page.next.secondary.toString()}::numeric,
               updated_at = clock_timestamp(),
               last_error = NULL
         WHERE name = ${p.name} AND suffix = ${row.suffix}
           AND position_primary = ${from.primary.toString()}::numeric
           AND position_secondary = ${from.secondary.toString()}::numeric
      `.execute(db.kysely);
      if (Number(moved.numAffectedRows ?? 0n) !== 1) throw new CheckpointMoved();
      row.position = page.next;
      return { advanced: true, caughtUp };
    }
    const t = physicalTables(p, row.suffix);
    const apply = (isolate: boolean) =>
      db.kysely.transaction().execute(async (trx) => {
        const { rows } = await sql<{ position_primary: string; position_secondary: string; parked: string[] | string }>`
          SELECT position_primary::text, position_secondary::text,
                 ARRAY(SELECT tenant_id FROM rm.projection_parked_tenants
                        WHERE name = ${p.name} AND suffix = ${row.suffix}) AS parked
            FROM rm.projection_checkpoints
           WHERE name = ${p.name} AND suffix = ${row.suffix} FOR UPDATE
        `.execute(trx);
        const locked = rows[0];
        if (
          !locked ||
          BigInt(locked.position_primary) !== from.primary ||
          BigInt(locked.position_secondary) !== from.secondary
        ) {
          throw new CheckpointMoved();
        }
        const parked = new Set(parseTextArray(locked.parked));
        const skipped = new Map<string, number>();
        const events = page.events.filter((e) => {
          const tenant = tenantOf(e);
          if (!parked.has(tenant)) return true;
          skipped.set(tenant, (skipped.get(tenant) ?? 0) + 1);
          return false;
        });
        if (!isolate) {
          if (events.length > 0) await p.handle(trx, events, t);
        } else {
          await applyOneByOne(trx, p, t, row.suffix, events, parked, skipped);
        }
        for (const [tenant, n] of skipped) {
          await sql`
            UPDATE rm.projection_parked_tenants SET skipped_events = skipped_events + ${n}
             WHERE name = ${p.name} AND suffix = ${row.suffix} AND tenant_id = ${tenant}
          `.execute(trx);
        }
        const n = page.events.length;
        await sql`
          UPDATE rm.projection_checkpoints
             SET position_primary = ${page.next.primary.toString()}::numeric,
                 position_secondary = ${page.next.secondary.toString()}::numeric,
                 events_processed = events_processed + ${n},
                 rate_events_per_s = CASE WHEN ${n}::int = 0 THEN rate_events_per_s
                   ELSE 0.7 * rate_events_per_s
                      + 0.3 * (${n}::int / greatest(extract(epoch FROM clock_timestamp() - updated_at), 0.001)) END,
                 updated_at = clock_timestamp(),
                 last_error = NULL
           WHERE name = ${p.name} AND suffix = ${row.suffix}
        `.execute(trx);
      });
    try {
      await apply(false);
    } catch (error) {
      // The batch failed as a whole: apply it again event by event, so an event that cannot be
      // applied parks only its own tenant and every other tenant's events still go through. A
      // transient failure (connection, serialization, lock) is retried by the caller instead.
      if (error instanceof CheckpointMoved || isTransient(error)) throw error;
      logger?.warn({ err: error, projection: p.name }, 'projection batch failed; applying it event by event');
      await apply(true);
    }
    row.position = page.next;
    return { advanced: true, caughtUp };
  }

  /** One unit of work for a projection; false when there was nothing to do. */
  // Steady state costs one query per poll: checkpoint rows are re-read at most every REFRESH_MS
  // (a stale row is harmless: the compare-and-set in processBatch notices and forces a reload),
  // and rebuild requests are looked up at the same pace.
  const cache = new Map<string, { rows: CheckpointRow[]; loadedAt: number }>();
  const requestsCheckedAt = new Map<string, number>();

  async function cachedRows(name: string): Promise<CheckpointRow[]> {
    const cached = cache.get(name);
    if (cached && Date.now() - cached.loadedAt < REFRESH_MS) return cached.rows;
    const rows = await loadRows(name);
    cache.set(name, { rows, loadedAt: Date.now() });
    return rows;
  }

  async function step(p: Projection): Promise<boolean> {
    try {
      return await stepWithRows(p, await cachedRows(p.name));
    } catch (error) {
      cache.delete(p.name);
      if (error instanceof CheckpointMoved) return true;
      throw error;
    }
  }

  async function stepWithRows(p: Projection, rows: CheckpointRow[]): Promise<boolean> {
    const live = rows.find((r) => r.state === 'live');
    let building = rows.find((r) => r.state === 'rebuilding');
    if (!live && !building) {
      cache.delete(p.name);
      await initialise(p);
      return true;
    }
    if (live && live.version > p.version) {
      if (!warnedNewer.has(p.name)) {
        warnedNewer.add(p.name);
        logger?.warn(
          { projection: p.name, live: live.version, registered: p.version },
          'a newer version of this projection is live; this worker leaves it alone',
        );
      }
      return false;
    }
    if (building && building.version !== p.version) {
      if (building.version > p.version) {
        // A newer worker is building its version (a rolling deploy). Until it switches over, this
        // worker keeps the live tables it understands current, so reads waiting for a position
        // (X-Min-Position) do not stall for the length of the rebuild.
        return live && live.version === p.version ? (await processBatch(p, live)).advanced : false;
      }
      cache.delete(p.name);
      await abandonBuild(p, building);
      building = undefined;
    }
    if (!building && live) {
      if (live.version < p.version) {
        cache.delete(p.name);
        await beginBuild(p, `v${p.version}`);
        return true;
      }
      if (Date.now() - (requestsCheckedAt.get(p.name) ?? 0) >= REFRESH_MS) {
        requestsCheckedAt.set(p.name, Date.now());
        if (await hasPendingRequest(p.name)) {
          cache.delete(p.name);
          await beginBuild(p, nextSuffix(p.version, live.suffix));
          return true;
        }
      }
    }
    let worked = false;
    // The live build keeps serving fresh data during a same-version rebuild.
    if (live && live.version === p.version) worked = (await processBatch(p, live)).advanced;
    if (building) {
      const result = await processBatch(p, building);
      worked ||= result.advanced;
      if (result.caughtUp) {
        cache.delete(p.name);
        await switchOver(p, building);
        worked = true;
      }
    }
    return worked;
  }

  /** Each event in its own savepoint; an event that fails parks its tenant for this build. */
  async function applyOneByOne(
    trx: Transaction<unknown>,
    p: Projection,
    t: ReturnType<typeof physicalTables>,
    suffix: string,
    events: readonly RecordedEvent[],
    parked: Set<string>,
    skipped: Map<string, number>,
  ): Promise<void> {
    for (const event of events) {
      const tenant = tenantOf(event);
      if (parked.has(tenant)) {
        skipped.set(tenant, (skipped.get(tenant) ?? 0) + 1);
        continue;
      }
      await sql`SAVEPOINT projection_event`.execute(trx);
      try {
        await p.handle(trx, [event], t);
        await sql`RELEASE SAVEPOINT projection_event`.execute(trx);
      } catch (error) {
        if (isTransient(error)) throw error;
        await sql`ROLLBACK TO SAVEPOINT projection_event`.execute(trx);
        const message = errorText(error);
        await sql`
          INSERT INTO rm.projection_parked_tenants
            (name, suffix, tenant_id, event_id, event_type, position_primary, position_secondary, error)
          VALUES (${p.name}, ${suffix}, ${tenant}, ${event.id}, ${event.type},
                  ${event.position.primary.toString()}::numeric, ${event.position.secondary.toString()}::numeric,
                  ${message})
          ON CONFLICT (name, suffix, tenant_id) DO NOTHING
        `.execute(trx);
        parked.add(tenant);
        logger?.error(
          { err: error, projection: p.name, suffix, tenant_id: tenant, event_id: event.id, event_type: event.type },
          'projection could not apply an event: its tenant is parked for this projection until a rebuild',
        );
      }
    }
  }

  async function hasPendingRequest(name: string): Promise<boolean> {
    const { rows } = await sql<{ n: number }>`
      SELECT 1 AS n FROM rm.projection_rebuild_requests WHERE name = ${name} AND started_at IS NULL LIMIT 1
    `.execute(db.kysely);
    return rows.length > 0;
  }

  async function recordError(p: Projection, error: unknown): Promise<void> {
    await sql`
      UPDATE rm.projection_checkpoints SET last_error = ${errorText(error)} WHERE name = ${p.name}
    `.execute(db.kysely);
  }

  return { step, recordError, loadRows };
}

async function dropTables(trx: Transaction<unknown>, tables: readonly string[], suffix: string): Promise<void> {
  for (const table of tables)
    await sql`DROP TABLE IF EXISTS ${sql.table(`rm.${table}_${suffix}`)} CASCADE`.execute(trx);
}

/** Events without a tenant (none are written today) share one parking slot. */
function tenantOf(event: RecordedEvent): string {
  return event.metadata.tenant_id ?? '';
}

function errorText(error: unknown): string {
  return (error instanceof Error ? `${error.name}: ${error.message}` : String(error)).slice(0, 2000);
}

// SQLSTATE classes that say nothing about the event: connection (08), transaction rollback such as
// serialization failures and deadlocks (40), resources (53), operator intervention such as
// statement timeouts and shutdowns (57), system errors (58), and a lock not available.
const TRANSIENT_CLASSES = new Set(['08', '40', '53', '57', '58']);

/** True when retrying the same batch later may succeed; such failures never park a tenant. */
export function isTransient(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code))
    return TRANSIENT_CLASSES.has(code.slice(0, 2)) || code === '55P03';
  // No SQLSTATE: a dropped connection or a network error from the driver, not a verdict on the data.
  const message = error instanceof Error ? error.message : String(error);
  return /connection|terminated|ECONNRESET|ECONNREFUSED|EPIPE|timeout/i.test(message);
}

function nextSuffix(version: number, liveSuffix: string): string {
  const m = /_r(\d+)$/.exec(liveSuffix);
  return `v${version}_r${m ? Number(m[1]) + 1 : 1}`;
}

function parseTextArray(value: string[] | string): string[] {
  if (Array.isArray(value)) return value;
  // PGlite's pool may hand back the array literal `{a,b}`; table names never need quoting.
  return value
    .replace(/^\{|\}$/g, '')
    .split(',')
    .filter(Boolean);
}
