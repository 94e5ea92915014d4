import { sql } from 'kysely';
import type { ModuleMigrations } from '@renkei/db';

/** Frozen once released: add new migrations, never edit these. */
export const eventStoreMigrations: ModuleMigrations = {
  '0001_events': {
    async up(db) {
      await sql`CREATE SCHEMA IF NOT EXISTS es`.execute(db);
      await sql`
        CREATE TABLE es.events (
          global_position bigserial PRIMARY KEY,
          transaction_id xid8 NOT NULL DEFAULT pg_current_xact_id(),
          stream_id text NOT NULL,
          revision int NOT NULL,
          event_id uuid NOT NULL,
          type text NOT NULL,
          data jsonb NOT NULL,
          metadata jsonb NOT NULL,
          tenant_id uuid NOT NULL,
          created_at timestamptz NOT NULL DEFAULT now(),
          CONSTRAINT events_stream_revision_key UNIQUE (stream_id, revision),
          CONSTRAINT events_event_id_key UNIQUE (event_id)
        )
      `.execute(db);
      // The keyset cursor of readAll walks this index; never order by global_position alone.
      await sql`CREATE INDEX events_transaction_position_idx ON es.events (transaction_id, global_position)`.execute(
        db,
      );
    },
  },
};
