import { sql } from 'kysely';
import type { ModuleMigrations } from '@renkei/db';

/** Command-side tables (schema `cmd`). Frozen once released: add new migrations, never edit these. */
export const commandMigrations: ModuleMigrations = {
  '0001_idempotency_and_tag_names': {
    async up(db) {
      await sql`CREATE SCHEMA IF NOT EXISTS cmd`.execute(db);
      await sql`
        CREATE TABLE cmd.idempotency_keys (
          tenant_id uuid NOT NULL,
          endpoint text NOT NULL,
          key text NOT NULL,
          request_hash text NOT NULL,
          resource_id uuid NOT NULL,
          response jsonb,
          position text,
          created_at timestamptz NOT NULL DEFAULT now(),
          PRIMARY KEY (tenant_id, endpoint, key)
        )
      `.execute(db);
      // One row per live tag name: the primary key is what makes names unique per tenant.
      await sql`
        CREATE TABLE cmd.tag_names (
          tenant_id uuid NOT NULL,
          normalized_name text NOT NULL,
          tag_id uuid NOT NULL,
          reserved_at timestamptz NOT NULL DEFAULT now(),
          PRIMARY KEY (tenant_id, normalized_name)
        )
      `.execute(db);
      await sql`CREATE INDEX tag_names_tag_idx ON cmd.tag_names (tenant_id, tag_id)`.execute(db);
    },
  },
};
