import { sql } from 'kysely';
import { migrateModule, type Database, type ModuleMigrations } from '@renkei/db';

/** Frozen once released: add new migrations, never edit these. */
export const projectionsMigrations: ModuleMigrations = {
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
};

export async function migrateProjections(db: Database): Promise<void> {
  await migrateModule(db.kysely, 'projections', projectionsMigrations);
}
