import { sql } from 'kysely';
import { migrateModuleOnce, type Database, type ModuleMigrations } from '@renkei/db';

/** Frozen once released: add new migrations, never edit these. */
const projectionsMigrations: ModuleMigrations = {
  '0001_checkpoints': {
    async up(db) {
      await sql`CREATE SCHEMA IF NOT EXISTS rm`.execute(db);
      // One row per build of a projection: the live one, and while rebuilding also the new one.
      // Positions are numeric(20): xid8 and EventStoreDB commit positions are unsigned 64-bit.
      await sql`
        CREATE TABLE rm.projection_checkpoints (
          name text NOT NULL,
          suffix text NOT NULL,
          version int NOT NULL,
          state text NOT NULL CHECK (state IN ('live', 'rebuilding')),
          -- The logical tables of this build, so a later version can drop them after switching.
          tables text[] NOT NULL,
          position_primary numeric(20, 0) NOT NULL DEFAULT 0,
          position_secondary numeric(20, 0) NOT NULL DEFAULT 0,
          events_processed bigint NOT NULL DEFAULT 0,
          rate_events_per_s double precision NOT NULL DEFAULT 0,
          started_at timestamptz NOT NULL DEFAULT now(),
          updated_at timestamptz NOT NULL DEFAULT now(),
          last_error text,
          PRIMARY KEY (name, suffix)
        )
      `.execute(db);
      await sql`
        CREATE UNIQUE INDEX projection_checkpoints_one_live ON rm.projection_checkpoints (name) WHERE state = 'live'
      `.execute(db);
      await sql`
        CREATE UNIQUE INDEX projection_checkpoints_one_rebuild
          ON rm.projection_checkpoints (name) WHERE state = 'rebuilding'
      `.execute(db);
      await sql`
        CREATE TABLE rm.projection_rebuild_requests (
          id bigserial PRIMARY KEY,
          name text NOT NULL,
          requested_at timestamptz NOT NULL DEFAULT now(),
          started_at timestamptz,
          completed_at timestamptz
        )
      `.execute(db);
    },
  },
  '0002_reactor_checkpoints': {
    async up(db) {
      await sql`
        CREATE TABLE rm.reactor_checkpoints (
          name text PRIMARY KEY,
          position_primary numeric(20, 0) NOT NULL DEFAULT 0,
          position_secondary numeric(20, 0) NOT NULL DEFAULT 0,
          events_processed bigint NOT NULL DEFAULT 0,
          updated_at timestamptz NOT NULL DEFAULT now(),
          last_error text
        )
      `.execute(db);
    },
  },
  '0003_projection_parked_tenants': {
    async up(db) {
      // A tenant whose event a projection could not apply: its later events of that build are skipped
      // (counted) so every other tenant keeps going; a rebuild (new suffix) starts without the row.
      await sql`
        CREATE TABLE rm.projection_parked_tenants (
          name text NOT NULL,
          suffix text NOT NULL,
          tenant_id text NOT NULL,
          event_id text NOT NULL,
          event_type text NOT NULL,
          position_primary numeric(20, 0) NOT NULL,
          position_secondary numeric(20, 0) NOT NULL,
          error text NOT NULL,
          skipped_events bigint NOT NULL DEFAULT 0,
          parked_at timestamptz NOT NULL DEFAULT now(),
          PRIMARY KEY (name, suffix, tenant_id)
        )
      `.execute(db);
    },
  },
  // The next two tables were first created at run time by whoever needed them; two queues starting at
  // once raced on CREATE TABLE IF NOT EXISTS (a unique violation in pg_type) and one stopped for good.
  '0004_reactor_parked_events': {
    async up(db) {
      await sql`CREATE TABLE IF NOT EXISTS rm.reactor_parked_events (
        reactor text NOT NULL, event_id uuid NOT NULL, event_type text NOT NULL, tenant_id uuid,
        error text NOT NULL, parked_at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (reactor, event_id))`.execute(
        db,
      );
    },
  },
  '0005_import_jobs': {
    async up(db) {
      await sql`CREATE TABLE IF NOT EXISTS rm.import_jobs (
        queue text NOT NULL, job_id uuid NOT NULL, tenant_id uuid NOT NULL, event jsonb NOT NULL,
        attempts int NOT NULL DEFAULT 0, last_error text, not_before timestamptz NOT NULL DEFAULT now(),
        enqueued_at timestamptz NOT NULL DEFAULT clock_timestamp(), done_at timestamptz,
        PRIMARY KEY (queue, job_id))`.execute(db);
      await sql`CREATE INDEX IF NOT EXISTS import_jobs_pending ON rm.import_jobs (queue, enqueued_at) WHERE done_at IS NULL`.execute(
        db,
      );
    },
  },
};

/** The runner, each reactor and each reactor's background task ask for it: one run per handle (`migrateModuleOnce`). */
export function migrateProjections(db: Database): Promise<void> {
  return migrateModuleOnce(db, 'projections', projectionsMigrations);
}
