import { sql } from 'kysely';
import type { Database } from '@renkei/db';
import { comparePositions, type EventStore, type Position } from '@renkei/event-store';
import { migrateProjections } from './projections.migrations.ts';
import { sleepUnlessAborted } from './abortable-sleep.ts';

const UNDEFINED_TABLE = '42P01';

/**
 * True once every named projection's live build has passed `position` (compared as a pair); false
 * when `timeoutMs` ran out first or `signal` aborted (a stopping worker). Read-your-writes for queries carrying `X-Min-Position`.
 */
export async function waitForPosition(
  db: Database,
  projectionNames: readonly string[],
  position: Position,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  const names = [...new Set(projectionNames)];
  let delay = 5;
  for (;;) {
    if (signal?.aborted) return false;
    if (await reached(db, names, position)) return true;
    const left = deadline - Date.now();
    if (left <= 0) return false;
    await sleepUnlessAborted(Math.min(delay, left), signal);
    delay = Math.min(delay * 2, 50);
  }
}

async function reached(db: Database, names: string[], position: Position): Promise<boolean> {
  if (names.length === 0) return true;
  try {
    const { rows } = await sql<{ name: string; position_primary: string; position_secondary: string }>`
      SELECT name, position_primary::text, position_secondary::text
        FROM rm.projection_checkpoints
       WHERE state = 'live' AND name = ANY(${sql.val(names)}::text[])
    `.execute(db.kysely);
    return names.every((name) => {
      const row = rows.find((r) => r.name === name);
      return (
        row !== undefined &&
        comparePositions(
          { primary: BigInt(row.position_primary), secondary: BigInt(row.position_secondary) },
          position,
        ) >= 0
      );
    });
  } catch (error) {
    // The worker has not created its tables yet: nothing has been projected.
    if ((error as { code?: string }).code === UNDEFINED_TABLE) return false;
    throw error;
  }
}

export interface ProjectionStatus {
  name: string;
  version: number;
  /** Physical table suffix of this build (`v3`, `v3_r1`). */
  suffix: string;
  state: 'live' | 'rebuilding';
  checkpoint: Position;
  events_processed: number;
  /** Events in the store after the checkpoint (whatever their type). */
  lag_events: number;
  /** Age of the oldest event not yet read; 0 when caught up. */
  lag_ms: number;
  rate_events_per_s: number;
  started_at: Date;
  updated_at: Date;
  last_error: string | null;
  /** Tenants this build stopped applying after one of their events failed (until a rebuild). */
  parked_tenants: ParkedTenant[];
}

export interface ParkedTenant {
  tenant_id: string;
  event_id: string;
  event_type: string;
  position: Position;
  error: string;
  skipped_events: number;
  parked_at: Date;
}

const LAG_COUNT_CAP = 100_000;

/**
 * The checkpoint tables exist before the first read: the ops CLI may ask a database no worker has
 * started on yet. Once per connection, not per call: `/data_sync_statuses` asks every few seconds.
 */
const migrated = new WeakMap<Database, Promise<void>>();
function checkpointTablesReady(db: Database): Promise<void> {
  let ready = migrated.get(db);
  if (!ready) {
    ready = migrateProjections(db);
    migrated.set(db, ready);
    ready.catch(() => migrated.delete(db));
  }
  return ready;
}

/** Every build of every projection known to the database, with its lag behind the store. */
export async function projectionStatus(db: Database, store: EventStore): Promise<ProjectionStatus[]> {
  await checkpointTablesReady(db);
  const { rows } = await sql<{
    name: string;
    suffix: string;
    version: number;
    state: 'live' | 'rebuilding';
    position_primary: string;
    position_secondary: string;
    events_processed: string;
    rate_events_per_s: number;
    started_at: Date | string;
    updated_at: Date | string;
    last_error: string | null;
  }>`
    SELECT name, suffix, version, state, position_primary::text, position_secondary::text,
           events_processed::text, rate_events_per_s, started_at, updated_at, last_error
      FROM rm.projection_checkpoints ORDER BY name, state
  `.execute(db.kysely);
  const parked = await sql<{
    name: string;
    suffix: string;
    tenant_id: string;
    event_id: string;
    event_type: string;
    position_primary: string;
    position_secondary: string;
    error: string;
    skipped_events: string;
    parked_at: Date | string;
  }>`
    SELECT name, suffix, tenant_id, event_id, event_type, position_primary::text, position_secondary::text, error,
           skipped_events::text, parked_at
      FROM rm.projection_parked_tenants ORDER BY name, suffix, parked_at
  `.execute(db.kysely);
  const result: ProjectionStatus[] = [];
  for (const r of rows) {
    const checkpoint = { primary: BigInt(r.position_primary), secondary: BigInt(r.position_secondary) };
    result.push({
      name: r.name,
      version: r.version,
      suffix: r.suffix,
      state: r.state,
      checkpoint,
      events_processed: Number(r.events_processed),
      ...(await lagBehind(store, checkpoint)),
      rate_events_per_s: Number(r.rate_events_per_s),
      started_at: new Date(r.started_at),
      updated_at: new Date(r.updated_at),
      last_error: r.last_error,
      parked_tenants: parked.rows
        .filter((p) => p.name === r.name && p.suffix === r.suffix)
        .map((p) => ({
          tenant_id: p.tenant_id,
          event_id: p.event_id,
          event_type: p.event_type,
          position: { primary: BigInt(p.position_primary), secondary: BigInt(p.position_secondary) },
          error: p.error,
          skipped_events: Number(p.skipped_events),
          parked_at: new Date(p.parked_at),
        })),
    });
  }
  return result;
}

export interface ReactorStatus {
  name: string;
  checkpoint: Position;
  events_processed: number;
  lag_events: number;
  lag_ms: number;
  updated_at: Date;
  last_error: string | null;
}

/** Every reactor (imports, the Kafka relay …) known to the database, with its lag behind the store. */
export async function reactorStatus(db: Database, store: EventStore): Promise<ReactorStatus[]> {
  await migrateProjections(db);
  const { rows } = await sql<{
    name: string;
    position_primary: string;
    position_secondary: string;
    events_processed: string;
    updated_at: Date | string;
    last_error: string | null;
  }>`
    SELECT name, position_primary::text, position_secondary::text, events_processed::text, updated_at, last_error
      FROM rm.reactor_checkpoints ORDER BY name
  `.execute(db.kysely);
  const result: ReactorStatus[] = [];
  for (const r of rows) {
    const checkpoint = { primary: BigInt(r.position_primary), secondary: BigInt(r.position_secondary) };
    result.push({
      name: r.name,
      checkpoint,
      events_processed: Number(r.events_processed),
      ...(await lagBehind(store, checkpoint)),
      updated_at: new Date(r.updated_at),
      last_error: r.last_error,
    });
  }
  return result;
}

/** Events after a checkpoint (whatever their type) and the age of the oldest of them. */
async function lagBehind(store: EventStore, checkpoint: Position): Promise<{ lag_events: number; lag_ms: number }> {
  const first = await store.readAll(checkpoint, { limit: 1 });
  if (first.events.length === 0) return { lag_events: 0, lag_ms: 0 };
  return {
    lag_events: store.countAfter ? await store.countAfter(checkpoint) : await countByPaging(store, checkpoint),
    lag_ms: Math.max(0, Date.now() - first.events[0]!.created_at.getTime()),
  };
}

async function countByPaging(store: EventStore, from: Position): Promise<number> {
  let count = 0;
  let position = from;
  while (count < LAG_COUNT_CAP) {
    const page = await store.readAll(position, { limit: 10_000 });
    count += page.events.length;
    if (page.events.length < 10_000) break;
    position = page.next;
  }
  return count;
}

/** Asks the workers to rebuild a projection into fresh tables (the live build serves until then). */
export async function requestRebuild(db: Database, name: string): Promise<void> {
  await migrateProjections(db);
  const { rows } = await sql`SELECT 1 FROM rm.projection_checkpoints WHERE name = ${name} LIMIT 1`.execute(db.kysely);
  if (rows.length === 0) throw new Error(`Unknown projection: ${name}`);
  await sql`INSERT INTO rm.projection_rebuild_requests (name) VALUES (${name})`.execute(db.kysely);
}
