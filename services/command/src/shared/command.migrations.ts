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
  '0002_reserve_tag_name': {
    async up(db) {
      // One round trip per reservation instead of up to five. A PL/pgSQL function gives each statement
      // its own snapshot, so the count taken after the tenant's lock sees every committed reservation
      // (a single CTE statement would count from a snapshot taken before the lock).
      await sql`
        CREATE FUNCTION cmd.reserve_tag_name(p_tenant uuid, p_name text, p_tag uuid, p_limit int)
        RETURNS TABLE (kind text, holder uuid, held_since timestamptz)
        LANGUAGE plpgsql AS $fn$
        DECLARE
          h record;
          n bigint;
        BEGIN
          IF p_limit IS NULL THEN
            LOOP
              INSERT INTO cmd.tag_names (tenant_id, normalized_name, tag_id)
              VALUES (p_tenant, p_name, p_tag)
              ON CONFLICT (tenant_id, normalized_name) DO NOTHING;
              IF FOUND THEN
                RETURN QUERY SELECT 'ok'::text, p_tag, now();
                RETURN;
              END IF;
              SELECT t.tag_id, t.reserved_at INTO h FROM cmd.tag_names t
               WHERE t.tenant_id = p_tenant AND t.normalized_name = p_name;
              -- Released between the two statements: try again.
              IF FOUND THEN
                RETURN QUERY SELECT CASE WHEN h.tag_id = p_tag THEN 'ok' ELSE 'held' END, h.tag_id, h.reserved_at;
                RETURN;
              END IF;
            END LOOP;
          END IF;
          -- Serialised per tenant so the limit check and the insert see the same set of tags.
          PERFORM pg_advisory_xact_lock(hashtextextended('tag_names:' || p_tenant::text, 0));
          SELECT t.tag_id, t.reserved_at INTO h FROM cmd.tag_names t
           WHERE t.tenant_id = p_tenant AND t.normalized_name = p_name;
          IF FOUND THEN
            RETURN QUERY SELECT CASE WHEN h.tag_id = p_tag THEN 'ok' ELSE 'held' END, h.tag_id, h.reserved_at;
            RETURN;
          END IF;
          SELECT count(DISTINCT t.tag_id) INTO n FROM cmd.tag_names t
           WHERE t.tenant_id = p_tenant AND t.tag_id <> p_tag;
          IF n >= p_limit THEN
            RETURN QUERY SELECT 'limit'::text, NULL::uuid, NULL::timestamptz;
            RETURN;
          END IF;
          INSERT INTO cmd.tag_names (tenant_id, normalized_name, tag_id) VALUES (p_tenant, p_name, p_tag);
          RETURN QUERY SELECT 'ok'::text, p_tag, now();
        END
        $fn$
      `.execute(db);
    },
  },
  '0003_reserve_tag_names': {
    async up(db) {
      // Group commit of reservations: the reservations concurrent requests make while another batch
      // is on its way leave together, one round trip and one commit. Items arrive sorted by tenant
      // and name, and each tenant's lock is taken before its names, so concurrent batches always wait
      // in the same order and never in a cycle. (Used where the events go to another store, EventStoreDB:
      // the reservation must be durable on its own, so it waits for its flush like any commit.)
      await sql`
        CREATE FUNCTION cmd.reserve_tag_names(p_tenants uuid[], p_names text[], p_tags uuid[], p_limits int[])
        RETURNS TABLE (item int, kind text, holder uuid, held_since timestamptz)
        LANGUAGE plpgsql AS $fn$
        DECLARE
          i int;
          locked uuid;
        BEGIN
          FOR i IN 1 .. coalesce(array_length(p_tenants, 1), 0) LOOP
            IF locked IS DISTINCT FROM p_tenants[i] THEN
              PERFORM pg_advisory_xact_lock(hashtextextended('tag_names:' || p_tenants[i]::text, 0));
              locked := p_tenants[i];
            END IF;
            RETURN QUERY
              SELECT i, r.kind, r.holder, r.held_since
                FROM cmd.reserve_tag_name(p_tenants[i], p_names[i], p_tags[i], p_limits[i]) r;
          END LOOP;
        END
        $fn$
      `.execute(db);
    },
  },
  '0004_tag_name_guard': {
    async up(db) {
      // The tag-name reservation as a guard of the Postgres event store (es.append_batch): it runs in
      // the append's transaction, so a name is held exactly when the event that claims it is stored,
      // and a rename frees the old name in that same transaction. Arguments:
      // { tenant, name (null: only release), tag, limit, release }. Items are taken by tenant and
      // name, the lock of a tenant with a limit before its names, so concurrent batches never wait in a
      // cycle. Only refusals are answered (es.append_batch admits every item without one).
      await sql`
        CREATE FUNCTION cmd.tag_name_guard(p_args json)
        RETURNS TABLE (item int, ok boolean, detail json)
        LANGUAGE plpgsql AS $fn$
        DECLARE
          r record;
          res record;
          locked uuid;
        BEGIN
          FOR r IN
            SELECT x.*, bool_or(x.max_tags IS NOT NULL) OVER (PARTITION BY x.tenant) AS counts
              FROM (
                SELECT a.item, (a.arg->>'tenant')::uuid AS tenant, a.arg->>'name' AS name,
                       (a.arg->>'tag')::uuid AS tag, (a.arg->>'limit')::int AS max_tags, a.arg->>'release' AS release
                  FROM json_to_recordset(p_args) AS a(item int, arg json)
              ) x
             ORDER BY x.tenant, x.name
          LOOP
            -- A tenant whose items count against a limit is locked before any of its names; one whose
            -- items do not is not locked at all (names taken in name order never wait in a cycle).
            IF r.counts AND locked IS DISTINCT FROM r.tenant THEN
              PERFORM pg_advisory_xact_lock(hashtextextended('tag_names:' || r.tenant::text, 0));
              locked := r.tenant;
            END IF;
            IF r.name IS NOT NULL THEN
              -- The common case inline: a name nobody holds, no limit to count against.
              IF r.max_tags IS NULL THEN
                INSERT INTO cmd.tag_names (tenant_id, normalized_name, tag_id)
                VALUES (r.tenant, r.name, r.tag)
                ON CONFLICT (tenant_id, normalized_name) DO NOTHING;
              END IF;
              IF r.max_tags IS NOT NULL OR NOT FOUND THEN
                SELECT x.kind, x.holder, x.held_since INTO res
                  FROM cmd.reserve_tag_name(r.tenant, r.name, r.tag, r.max_tags) x;
                IF res.kind <> 'ok' THEN
                  item := r.item;
                  ok := false;
                  detail := json_build_object('kind', res.kind, 'holder', res.holder, 'held_since', res.held_since);
                  RETURN NEXT;
                  CONTINUE;
                END IF;
              END IF;
            END IF;
            IF r.release IS NOT NULL THEN
              DELETE FROM cmd.tag_names t
               WHERE t.tenant_id = r.tenant AND t.normalized_name = r.release AND t.tag_id = r.tag;
            END IF;
          END LOOP;
        END
        $fn$
      `.execute(db);
    },
  },
  '0005_label_names': {
    async up(db) {
      // Institution label names, unique per tenant and kind after NFKC and trimming (an import header
      // names its label by it), held by the command side: it never reads the query side's tables. A
      // row per live label, so the rows are also the tenant's labels (the reorder's completeness
      // check) and their display order as the projection computes it (appended last, then reordered).
      await sql`
        CREATE TABLE cmd.label_names (
          tenant_id uuid NOT NULL,
          kind text NOT NULL,
          normalized_name text NOT NULL,
          label_id uuid NOT NULL,
          sort_order int NOT NULL,
          reserved_at timestamptz NOT NULL DEFAULT now(),
          PRIMARY KEY (tenant_id, kind, normalized_name)
        )
      `.execute(db);
      await sql`CREATE INDEX label_names_label_idx ON cmd.label_names (tenant_id, label_id)`.execute(db);
      // Labels stored before: from the Postgres store's events when it holds them (an EventStoreDB
      // install starts empty; its existing labels hold their names from their next save). Of two
      // labels already sharing a name the older keeps it.
      const { rows } = await sql<{ present: boolean }>`SELECT to_regclass('es.events') IS NOT NULL AS present`.execute(
        db,
      );
      if (!rows[0]?.present) return;
      await sql`
        WITH last AS (
          SELECT DISTINCT ON (stream_id) stream_id, tenant_id, type, data, global_position
            FROM es.events
           WHERE stream_id LIKE 'medical_institution_label-%'
           ORDER BY stream_id, revision DESC
        ), live AS (
          SELECT tenant_id, (data->>'label_id')::uuid AS label_id, btrim(normalize(data->>'name', NFKC)) AS name,
                 (SELECT min(e.global_position) FROM es.events e WHERE e.stream_id = last.stream_id) AS created
            FROM last
           WHERE type <> 'MedicalInstitutionLabelDeleted'
        ), ordered AS (
          SELECT DISTINCT ON (stream_id) tenant_id, data->'label_ids' AS ids
            FROM es.events
           WHERE stream_id LIKE 'medical_institution_label_order-%'
           ORDER BY stream_id, revision DESC
        ), ranked AS (
          SELECT live.*,
                 (SELECT x.i FROM ordered o, jsonb_array_elements_text(o.ids) WITH ORDINALITY x(id, i)
                   WHERE o.tenant_id = live.tenant_id AND x.id = live.label_id::text LIMIT 1) AS listed
            FROM live
        )
        INSERT INTO cmd.label_names (tenant_id, kind, normalized_name, label_id, sort_order)
        SELECT tenant_id, 'medical_institution', name, label_id,
               (row_number() OVER (PARTITION BY tenant_id ORDER BY listed NULLS LAST, created))::int - 1
          FROM ranked
         ORDER BY created
        ON CONFLICT DO NOTHING
      `.execute(db);
    },
  },
  '0006_tag_usage': {
    async up(db) {
      // How many institutions carry each tag, kept by the command side so a tag write answers the real
      // count without reading the query side's tables. On Postgres it moves in the transaction of the
      // MedicalInstitutionTagsChanged it counts (a guard of es.append_batch); EventStoreDB installs
      // update it right after the append.
      await sql`
        CREATE TABLE cmd.tag_usage (
          tenant_id uuid NOT NULL,
          tag_id uuid NOT NULL,
          medical_institution_count int NOT NULL,
          PRIMARY KEY (tenant_id, tag_id)
        )
      `.execute(db);
      // Arguments: { tenant, added: uuid[], removed: uuid[] }. Never refuses: answers no rows.
      await sql`
        CREATE FUNCTION cmd.tag_usage_guard(p_args json)
        RETURNS TABLE (item int, ok boolean, detail json)
        LANGUAGE plpgsql AS $fn$
        #variable_conflict use_column
        BEGIN
          -- Rows in tenant and tag order, so concurrent batches never lock them in a cycle.
          INSERT INTO cmd.tag_usage AS u (tenant_id, tag_id, medical_institution_count)
          SELECT (a.arg->>'tenant')::uuid, t.tag::uuid, sum(t.delta)::int
            FROM json_to_recordset(p_args) AS a(item int, arg json),
                 LATERAL (
                   SELECT x, 1 FROM json_array_elements_text(a.arg->'added') x
                   UNION ALL
                   SELECT x, -1 FROM json_array_elements_text(a.arg->'removed') x
                 ) AS t(tag, delta)
           GROUP BY 1, 2
           ORDER BY 1, 2
          ON CONFLICT (tenant_id, tag_id)
            DO UPDATE SET medical_institution_count = u.medical_institution_count + excluded.medical_institution_count;
        END
        $fn$
      `.execute(db);
      const { rows } = await sql<{ present: boolean }>`SELECT to_regclass('es.events') IS NOT NULL AS present`.execute(
        db,
      );
      if (!rows[0]?.present) return;
      await sql`
        INSERT INTO cmd.tag_usage (tenant_id, tag_id, medical_institution_count)
        SELECT last.tenant_id, tag.id::uuid, count(*)::int
          FROM (
            SELECT DISTINCT ON (stream_id) tenant_id, data
              FROM es.events
             WHERE type = 'MedicalInstitutionTagsChanged'
             ORDER BY stream_id, revision DESC
          ) last,
          jsonb_array_elements_text(last.data->'tag_ids') AS tag(id)
         GROUP BY 1, 2
      `.execute(db);
    },
  },
  '0007_communication_tasks': {
    // Which communication a task was entered with: its birth lives in that record's stream.
    async up(db) {
      await sql`
        CREATE TABLE cmd.communication_tasks (
          tenant_id uuid NOT NULL,
          task_id uuid NOT NULL,
          communication_id uuid NOT NULL,
          PRIMARY KEY (tenant_id, task_id)
        )`.execute(db);
    },
  },
  '0008_voc_index': {
    // Which VOCs may use a group or link a communication (candidates; their streams decide).
    async up(db) {
      await sql`
        CREATE TABLE cmd.voc_index (
          tenant_id uuid NOT NULL,
          voc_id uuid NOT NULL,
          group_ids uuid[] NOT NULL DEFAULT '{}',
          communication_ids uuid[] NOT NULL DEFAULT '{}',
          PRIMARY KEY (tenant_id, voc_id)
        )`.execute(db);
      await sql`CREATE INDEX voc_index_groups ON cmd.voc_index USING gin (group_ids)`.execute(db);
      await sql`CREATE INDEX voc_index_communications ON cmd.voc_index USING gin (communication_ids)`.execute(db);
    },
  },
  '0009_imported_communications': {
    // Which chunk of a communication import holds a record that has no stream of its own yet (the
    // worker writes these before the chunk's append; a row whose chunk never got stored finds nothing).
    async up(db) {
      await sql`
        CREATE TABLE cmd.imported_communications (
          tenant_id uuid NOT NULL,
          communication_id uuid NOT NULL,
          rows_id uuid NOT NULL,
          PRIMARY KEY (tenant_id, communication_id)
        )`.execute(db);
    },
  },
};
