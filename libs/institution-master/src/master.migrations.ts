import { sql, type Kysely } from 'kysely';
import type { ModuleMigrations } from '@renkei/db';

/** Frozen: add new entries, never edit released ones. */
export const institutionMasterMigrations: ModuleMigrations = {
  '0001_master': {
    async up(db: Kysely<any>) {
      await sql`CREATE SCHEMA IF NOT EXISTS ref`.execute(db);
      await sql`
        CREATE TABLE ref.medical_institutions (
          id uuid PRIMARY KEY,
          code text NOT NULL UNIQUE,
          name text NOT NULL,
          kana text NOT NULL DEFAULT '',
          postal_code text NOT NULL DEFAULT '',
          address text NOT NULL,
          prefecture_code smallint,
          prefecture text NOT NULL DEFAULT '',
          city text NOT NULL DEFAULT '',
          tel text NOT NULL DEFAULT '',
          founder text NOT NULL DEFAULT '',
          administrator_name text NOT NULL DEFAULT '',
          facility_type_id integer,
          facility_type_group_id integer,
          bed_count integer,
          department_names text[] NOT NULL DEFAULT '{}',
          department_ids integer[] NOT NULL DEFAULT '{}',
          latitude double precision,
          longitude double precision,
          running_status text NOT NULL DEFAULT 'unknown'
            CHECK (running_status IN ('open', 'closed', 'suspended', 'unknown')),
          search_text text NOT NULL,
          content_hash text,
          last_sync_run_id uuid,
          created_at timestamptz NOT NULL DEFAULT now(),
          updated_at timestamptz NOT NULL DEFAULT now()
        )`.execute(db);
      await sql`CREATE INDEX medical_institutions_pref_city ON ref.medical_institutions (prefecture_code, city)`.execute(
        db,
      );
      await sql`CREATE INDEX medical_institutions_facility_type ON ref.medical_institutions (facility_type_id)`.execute(
        db,
      );
      await sql`CREATE INDEX medical_institutions_departments ON ref.medical_institutions USING gin (department_ids)`.execute(
        db,
      );
      await sql`CREATE INDEX medical_institutions_kana ON ref.medical_institutions (kana, id)`.execute(db);
      // pg_trgm serves substring search from an index. The embedded PGlite build does not ship it, and
      // there the search falls back to a scan of the normalised column (a few thousand rows).
      const { rows } = await sql<{ n: number }>`
        SELECT count(*)::int AS n FROM pg_available_extensions WHERE name = 'pg_trgm'`.execute(db);
      if ((rows[0]?.n ?? 0) > 0) {
        await sql`CREATE EXTENSION IF NOT EXISTS pg_trgm`.execute(db);
        await sql`
          CREATE INDEX medical_institutions_search_trgm ON ref.medical_institutions
          USING gin (search_text gin_trgm_ops)`.execute(db);
      }
      await sql`
        CREATE TABLE ref.sync_runs (
          id uuid PRIMARY KEY,
          kind text NOT NULL DEFAULT 'medical_institutions',
          source text NOT NULL,
          full_sync boolean NOT NULL,
          encoding text,
          status text NOT NULL CHECK (status IN ('running', 'completed', 'failed')),
          total_rows integer NOT NULL DEFAULT 0,
          inserted_count integer NOT NULL DEFAULT 0,
          updated_count integer NOT NULL DEFAULT 0,
          unchanged_count integer NOT NULL DEFAULT 0,
          closed_count integer NOT NULL DEFAULT 0,
          failed_count integer NOT NULL DEFAULT 0,
          errors jsonb NOT NULL DEFAULT '[]',
          error_message text,
          started_at timestamptz NOT NULL DEFAULT now(),
          finished_at timestamptz
        )`.execute(db);
      await sql`CREATE INDEX sync_runs_started ON ref.sync_runs (kind, started_at DESC)`.execute(db);
    },
  },
  // A 2-character keyword (病院, 眼科, 内科: the most common searches) has no trigram, so it scanned the
  // whole master (~140 ms on 180,000 rows for the substring test alone). An inverted index of the
  // search text's 2-grams answers it from the index with stock Postgres and on PGlite alike (no pg_bigm,
  // no pg_trgm needed). An expression index rather than a stored column keeps the heap (which every
  // non-keyword search and the export read) as narrow as before; `@>` on text[] is exact, so matches need
  // no recheck.
  '0002_search_bigrams': {
    async up(db: Kysely<any>) {
      await sql`
        CREATE FUNCTION ref.search_bigrams(t text) RETURNS text[]
        LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
        AS $$ SELECT coalesce(array_agg(DISTINCT substr(t, i, 2)), '{}') FROM generate_series(1, length(t) - 1) AS i $$`.execute(
        db,
      );
      await sql`
        CREATE INDEX medical_institutions_search_bigrams ON ref.medical_institutions
        USING gin (ref.search_bigrams(search_text))`.execute(db);
    },
  },
  // Analysis and visit charts filtered by facility type take the ids of that type's institutions and
  // join them to rollups: with the id in the index that is an index-only scan instead of reading the
  // master's heap (10 MB, ~180,000 rows) on every call. It supersedes the one-column index.
  '0003_facility_type_ids': {
    async up(db: Kysely<any>) {
      await sql`CREATE INDEX medical_institutions_facility_type_ids ON ref.medical_institutions (facility_type_id, id)`.execute(
        db,
      );
      await sql`DROP INDEX ref.medical_institutions_facility_type`.execute(db);
    },
  },
  // The communication form's 現在地の近く: a bounding box of a few kilometres around the phone, read from
  // this index, then the exact great-circle distance of the few rows inside it. A btree and plain SQL
  // rather than PostGIS or earthdistance, which the embedded PGlite does not ship.
  '0004_coordinates': {
    async up(db: Kysely<any>) {
      await sql`
        CREATE INDEX medical_institutions_coordinates ON ref.medical_institutions (latitude, longitude)`.execute(db);
    },
  },
};
