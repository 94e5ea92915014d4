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
  '0002_append_function': {
    async up(db) {
      // The append as a PL/pgSQL function: PL/pgSQL keeps the plan of its statement per backend, so
      // the CTE (which costs more to plan than to run) is planned once per connection on Postgres and
      // once per process on the embedded PGlite, where named prepared statements are not safe. The
      // statement is the single-statement append it replaces: one round trip, atomic, and the unique
      // keys still decide races (a 23505 reaches the caller as before). Only ids the caller chose are
      // looked up (`p_lookup_ids`): an id the store generated cannot be stored already.
      await sql`
        CREATE FUNCTION es.append_events(
          p_stream text, p_ids uuid[], p_types text[], p_data text[], p_metadata text[], p_tenants uuid[],
          p_expected_kind text, p_expected int, p_tenant uuid, p_lookup_ids uuid[])
        RETURNS TABLE (kind text, stream_id text, revision int, tenant_id text, transaction_id text,
                       global_position text)
        LANGUAGE plpgsql AS $fn$
        #variable_conflict use_column
        BEGIN
          RETURN QUERY
          WITH head AS (
            SELECT e.stream_id, e.revision, e.tenant_id, e.transaction_id, e.global_position
              FROM es.events e WHERE e.stream_id = p_stream ORDER BY e.revision DESC LIMIT 1
          ),
          existing AS (
            SELECT e.stream_id, e.revision, e.tenant_id, e.transaction_id, e.global_position
              FROM es.events e WHERE e.event_id = ANY(p_lookup_ids)
          ),
          ok AS (
            SELECT NOT EXISTS (SELECT 1 FROM existing)
               AND NOT EXISTS (SELECT 1 FROM head h WHERE h.tenant_id <> p_tenant)
               AND CASE p_expected_kind
                     WHEN 'any' THEN true
                     WHEN 'no_stream' THEN NOT EXISTS (SELECT 1 FROM head)
                     WHEN 'stream_exists' THEN EXISTS (SELECT 1 FROM head)
                     ELSE (SELECT h.revision FROM head h) IS NOT DISTINCT FROM p_expected
                   END AS ok
          ),
          inserted AS (
            INSERT INTO es.events (stream_id, revision, event_id, type, data, metadata, tenant_id)
            SELECT p_stream, COALESCE((SELECT h.revision + 1 FROM head h), 0) + (t.ord - 1)::int, t.id, t.type,
                   t.data::jsonb, t.metadata::jsonb, t.tenant_id
              FROM unnest(p_ids, p_types, p_data, p_metadata, p_tenants)
                   WITH ORDINALITY AS t(id, type, data, metadata, tenant_id, ord)
             WHERE (SELECT o.ok FROM ok o)
            RETURNING es.events.stream_id, es.events.revision, es.events.tenant_id, es.events.transaction_id,
                      es.events.global_position
          )
          SELECT 'inserted'::text, i.stream_id, i.revision, i.tenant_id::text, i.transaction_id::text,
                 i.global_position::text
            FROM inserted i
          UNION ALL
          SELECT 'head'::text, h.stream_id, h.revision, h.tenant_id::text, h.transaction_id::text,
                 h.global_position::text FROM head h
          UNION ALL
          SELECT 'existing'::text, x.stream_id, x.revision, x.tenant_id::text, x.transaction_id::text,
                 x.global_position::text FROM existing x;
        END
        $fn$
      `.execute(db);
    },
  },
  '0003_append_batch': {
    async up(db) {
      // Group commit: the appends that concurrent requests of one process make while another batch is
      // on its way leave together, one transaction and one commit for all of them. It is the append of
      // 0002 made set-wise over distinct streams (a second append to a stream of the batch waits for
      // the next one), in three steps:
      //   1. every item's head and already-stored ids, and whether its append may go in;
      //   2. the guards of the items that may: a guard is a function of the service that appends
      //      (`<schema>.<name>(args json) RETURNS TABLE (item int, ok boolean, detail json)`, called
      //      once per batch with its items' arguments) whose writes, such as a unique name's
      //      reservation, commit with the events or not at all, and which may refuse an item;
      //   3. the events of the items still in, at the revisions step 1 saw (a concurrent writer in
      //      between makes the (stream, revision) key fail, and a unique violation aborts the whole
      //      batch: the caller then appends the items one by one), and for the other items their
      //      stream's head and their stored events, which the caller turns into the right error.
      // The batch comes as two JSON documents (items, events): one JSON.stringify in the service and
      // one parse here cost less than a dozen array parameters whose elements the driver escapes one
      // by one. Only the unique indexes are ever worth using here (see 0004).
      await sql`
        CREATE FUNCTION es.append_batch(p_items json, p_events json)
        RETURNS TABLE (item int, kind text, stream_id text, revision int, tenant_id text, transaction_id text,
                       global_position text, detail json)
        LANGUAGE plpgsql
        SET enable_seqscan = off
        AS $fn$
        #variable_conflict use_column
        DECLARE
          v_ok int[];
          v_next int[];
          v_refused int[] := '{}';
          g record;
        BEGIN
          -- Step 1: the items whose append may go in, with the revision each starts at.
          WITH items AS (
            SELECT i.item, i.stream, i.expected_kind, i.expected, i.tenant
              FROM json_to_recordset(p_items)
                   AS i(item int, stream text, expected_kind text, expected int, tenant uuid)
          ),
          heads AS (
            SELECT i.item, h.revision, h.tenant_id
              FROM items i
              CROSS JOIN LATERAL (
                SELECT e.revision, e.tenant_id FROM es.events e WHERE e.stream_id = i.stream
                 ORDER BY e.revision DESC LIMIT 1
              ) h
          ),
          stored AS (
            SELECT DISTINCT v.item
              FROM json_to_recordset(p_events) AS v(item int, id uuid, lookup boolean)
              JOIN es.events e ON e.event_id = v.id
             WHERE v.lookup
          )
          SELECT coalesce(array_agg(i.item ORDER BY i.item), '{}'),
                 coalesce(array_agg(COALESCE(h.revision + 1, 0) ORDER BY i.item), '{}')
            INTO v_ok, v_next
            FROM items i LEFT JOIN heads h ON h.item = i.item
           WHERE NOT EXISTS (SELECT 1 FROM stored x WHERE x.item = i.item)
             AND (h.item IS NULL OR h.tenant_id = i.tenant)
             AND CASE i.expected_kind
                   WHEN 'any' THEN true
                   WHEN 'no_stream' THEN h.item IS NULL
                   WHEN 'stream_exists' THEN h.item IS NOT NULL
                   ELSE h.revision IS NOT DISTINCT FROM i.expected
                 END;

          -- Step 2: each guard once, with the arguments of its items that may go in.
          FOR g IN
            SELECT i.guard, json_agg(json_build_object('item', i.item, 'arg', i.guard_arg) ORDER BY i.item) AS args
              FROM json_to_recordset(p_items) AS i(item int, guard text, guard_arg json)
             WHERE i.guard IS NOT NULL AND i.item = ANY (v_ok)
             GROUP BY i.guard
             ORDER BY i.guard
          LOOP
            FOR item, detail IN
              EXECUTE format('SELECT r.item, r.detail FROM %s($1) r WHERE NOT r.ok', g.guard::regproc) USING g.args
            LOOP
              v_refused := v_refused || item;
              kind := 'refused';
              RETURN NEXT;
            END LOOP;
          END LOOP;
          detail := NULL;

          -- Step 3: the events of the items still in, then what the caller needs of the others.
          RETURN QUERY
          WITH items AS (
            SELECT i.item, i.stream FROM json_to_recordset(p_items) AS i(item int, stream text)
          ),
          admitted AS (
            SELECT o.item, o.next_revision FROM unnest(v_ok, v_next) AS o(item, next_revision)
             WHERE o.item <> ALL (v_refused)
          ),
          inserted AS (
            INSERT INTO es.events (stream_id, revision, event_id, type, data, metadata, tenant_id)
            SELECT i.stream, a.next_revision + v.event_offset, v.id, v.type, COALESCE(v.data, 'null'), v.metadata,
                   v.tenant
              FROM json_to_recordset(p_events)
                   AS v(item int, event_offset int, id uuid, type text, data jsonb, metadata jsonb, tenant uuid, n int)
              JOIN admitted a ON a.item = v.item
              JOIN items i ON i.item = v.item
             ORDER BY v.n
            RETURNING es.events.stream_id, es.events.revision, es.events.tenant_id, es.events.transaction_id,
                      es.events.global_position
          ),
          others AS (
            SELECT i.item, i.stream FROM items i WHERE i.item NOT IN (SELECT a.item FROM admitted a)
          )
          SELECT i.item, 'inserted'::text, n.stream_id, n.revision, n.tenant_id::text, n.transaction_id::text,
                 n.global_position::text, NULL::json
            FROM inserted n JOIN items i ON i.stream = n.stream_id
          UNION ALL
          SELECT o.item, 'head'::text, h.stream_id, h.revision, h.tenant_id::text, h.transaction_id::text,
                 h.global_position::text, NULL::json
            FROM others o
            CROSS JOIN LATERAL (
              SELECT e.stream_id, e.revision, e.tenant_id, e.transaction_id, e.global_position
                FROM es.events e WHERE e.stream_id = o.stream ORDER BY e.revision DESC LIMIT 1
            ) h
          UNION ALL
          SELECT o.item, 'existing'::text, e.stream_id, e.revision, e.tenant_id::text, e.transaction_id::text,
                 e.global_position::text, NULL::json
            FROM others o
            JOIN json_to_recordset(p_events) AS v(item int, id uuid, lookup boolean) ON v.item = o.item AND v.lookup
            JOIN es.events e ON e.event_id = v.id;
        END
        $fn$
      `.execute(db);
    },
  },
  '0004_append_never_scans': {
    async up(db) {
      // PL/pgSQL keeps the plan it makes at a connection's first append. Made while es.events was
      // small, that plan looked the caller's event ids up with a sequential scan, and it stayed so
      // as the table grew, until the next ANALYZE: on a fresh database a batch of 16 appends went
      // from 1.6 ms to 18 ms within a few thousand events. An append only ever needs the two unique
      // indexes, whatever the table's size.
      await sql`
        ALTER FUNCTION es.append_events(text, uuid[], text[], text[], text[], uuid[], text, int, uuid, uuid[])
          SET enable_seqscan = off
      `.execute(db);
    },
  },
  '0005_commit_ordered_positions': {
    async up(db) {
      // Global positions in commit order, so a reader never waits on the server-wide snapshot horizon
      // (pg_snapshot_xmin), which any transaction of any database on the server holding an xid held
      // back. Every insert into es.events first takes one advisory lock of this database (a
      // transaction-level lock: released at commit, after the commit became visible), and only then
      // draws its global positions (the column default runs after BEFORE STATEMENT triggers). So a
      // transaction draws positions only after every earlier appender became visible, and what a
      // snapshot sees of es.events is always a prefix in position order: nothing can appear below a
      // position a reader has passed. The lock is held from the insert to the commit only; group
      // commit makes that once per batch.
      //
      // Positions stay pairs comparable with those already handed out (checkpoints, X-Min-Position):
      // rows from now on carry a fixed first half, the epoch, above the xid of every row already
      // stored, so (epoch, global_position) sorts after every older (xid, global_position) and the
      // keyset cursor and its index stay as they are. Taken under an exclusive lock, which waits for
      // every append in flight and keeps new ones out until the trigger and the default are in place:
      // every row below the epoch is then final, and the next snapshot's xmax is above all of them.
      await sql`LOCK TABLE es.events IN ACCESS EXCLUSIVE MODE`.execute(db);
      await sql`
        CREATE FUNCTION es.take_append_order() RETURNS trigger LANGUAGE plpgsql AS $fn$
        BEGIN
          -- 25971 is 'es'; the two-key form never meets the one-key locks of other modules.
          PERFORM pg_advisory_xact_lock(25971, 1);
          RETURN NULL;
        END
        $fn$
      `.execute(db);
      await sql`
        CREATE TRIGGER events_append_order BEFORE INSERT ON es.events
          FOR EACH STATEMENT EXECUTE FUNCTION es.take_append_order()
      `.execute(db);
      await sql`
        DO $do$
        DECLARE
          v_epoch xid8 := pg_snapshot_xmax(pg_current_snapshot());
        BEGIN
          EXECUTE format('ALTER TABLE es.events ALTER COLUMN transaction_id SET DEFAULT %L::xid8', v_epoch);
          EXECUTE format(
            'COMMENT ON COLUMN es.events.transaction_id IS %L',
            'First half of the position: the writing transaction''s xid for rows stored before migration '
              || '0005, the epoch ' || v_epoch || ' for every row since (ordered by global_position, which '
              || 'is commit order).');
        END
        $do$
      `.execute(db);
    },
  },
  '0006_notify_appends': {
    async up(db) {
      // Followers in other processes (the separate services) hear of an append at its commit instead of
      // polling for it: the statement trigger every insert already runs also notifies. A notification is
      // sent only if its transaction commits, once per transaction whatever the number of statements.
      await sql`
        CREATE OR REPLACE FUNCTION es.take_append_order() RETURNS trigger LANGUAGE plpgsql AS $fn$
        BEGIN
          -- 25971 is 'es'; the two-key form never meets the one-key locks of other modules.
          PERFORM pg_advisory_xact_lock(25971, 1);
          PERFORM pg_notify('es_appended', '');
          RETURN NULL;
        END
        $fn$
      `.execute(db);
    },
  },
};
