import { sql, type Transaction } from 'kysely';
import { defineProjection } from '@renkei/projections';
import {
  communicationEventSchemas,
  communicationImportRowsEventSchemas,
  communicationLabelEventSchemas,
  eventDecoder,
  type CommunicationFields,
  type CommunicationLabelDefinition,
  type LabelSelectionData,
} from '@renkei/domain';
import { normalizeKeyword } from '@renkei/institution-master';
import { createTables, insertRows, tableNames, type WriteRow } from '../shared/table.ts';
import {
  communicationCommentsTable,
  communicationDayCountsTable,
  communicationLabelOrdersTable,
  communicationLabelsTable,
  communicationLikesTable,
  communicationsTable,
  lastVisitsTable,
} from './communications.tables.ts';

const decode = eventDecoder({
  ...communicationEventSchemas,
  ...communicationLabelEventSchemas,
  ...communicationImportRowsEventSchemas,
});
const tables = [
  communicationsTable,
  communicationCommentsTable,
  communicationLikesTable,
  communicationLabelsTable,
  communicationDayCountsTable,
  communicationLabelOrdersTable,
  lastVisitsTable,
] as const;

/** Labels created after the last reorder sort after every reordered one, in creation order. */
const NEW_LABEL_ORDER = 1_000_000;
const visitTypes = ['visit', 'new_visit'];

interface RecordEntry {
  tenantId: string;
  fields: CommunicationFields | null;
  /** Created in this batch: the row is new and its version is the number of updates seen. */
  created: boolean;
  updates: number;
  deleted: boolean;
  revision: number;
  createdAt: Date;
  updatedAt: Date;
  /** Made by an import chunk and untouched since in this batch: inserted in one statement of its own. */
  imported?: boolean;
}

interface LabelEntry {
  tenantId: string;
  labelId: string;
  definition: CommunicationLabelDefinition | null;
  created: boolean;
  updates: number;
  deleted: boolean;
  /** When the label was deleted in this batch. */
  deletedAt: Date | null;
  /** Choices an earlier event of this batch had and a later one removed. */
  removedSelections: LabelSelectionData[];
  createdOrder: number;
}

const searchText = (f: CommunicationFields) => [f.story, f.memo, f.other_memo].map(normalizeKeyword).join('\u0001');

/**
 * `rm.communications` with comments, likes and the tenant's communication labels, plus each
 * institution's last visit (visit and new_visit), recomputed from the rows for the institutions a
 * batch touched. The batch is folded per record first; every table gets a fixed number of statements.
 */
export const communicationsProjection = defineProjection({
  name: 'communications',
  // v2: indexes for the search (docs/benchmarks.md, communications at 1,000,000): (tenant, type, date),
  // and a trigram index on the keyword text where pg_trgm is installed.
  // v3: a 2-gram index on the keyword text, for two-character keywords (面談), which have no trigram.
  // v4: records per tenant, day and type (the search's total without a visit per record) and the
  // label order's number of saves (the ETag of the label list); the search's whole order in its indexes.
  // v5: each comment's number of edits (the If-Match of its author's edit or delete).
  // v6: a covering index of the keyword text by period, for the count of a keyword search over a period.
  // v7: deleted labels stay, flagged (`deleted_at`), and removed choices are kept with their text
  // (`deleted_selections`), so the values records keep of them are still shown.
  version: 7,
  eventTypes: decode.types,
  // An import's chunk carries 2,000 rows: 50 of them are 100,000 rows folded in memory at once.
  maxBatchEvents: 50,
  tables: tableNames(tables),
  async setup(trx, t) {
    await createTables(trx, tables, t);
    // pg_trgm serves a keyword of three characters or more from an index (the search uses LIKE then).
    // The institution master's migration installs it where Postgres ships it; PGlite does not, and
    // there the keyword reads the period's rows as before.
    const { rows } = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM pg_extension WHERE extname = 'pg_trgm'`.execute(trx);
    if ((rows[0]?.n ?? 0) > 0)
      await sql`CREATE INDEX ON ${sql.table(t.communications)} USING gin (search_text gin_trgm_ops)`.execute(trx);
    // A two-character keyword (面談, 院長: the most common) is one 2-gram: an expression index of the
    // text's 2-grams answers it without reading the period's rows, on Postgres and PGlite alike (the
    // institution master's approach, its migration 0002; the function is this projection's own, since
    // the master's schema may not exist yet where the worker sets up). An expression, not a stored
    // column, keeps the heap that every other search reads as narrow as before.
    const { rows: fn } = await sql<{ ok: boolean }>`
      SELECT to_regprocedure('rm.search_bigrams(text)') IS NOT NULL AS ok`.execute(trx);
    if (!fn[0]?.ok)
      await sql`
        CREATE FUNCTION rm.search_bigrams(t text) RETURNS text[]
        LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
        AS $$ SELECT coalesce(array_agg(DISTINCT substr(t, i, 2)), '{}') FROM generate_series(1, length(t) - 1) AS i $$`.execute(
        trx,
      );
    await sql`CREATE INDEX ON ${sql.table(t.communications)} USING gin (rm.search_bigrams(search_text))`.execute(trx);
    // The count of a keyword search over a period (the search's keywordCount): every record of the period
    // with its text in the index, so strpos reads index pages only. A common keyword counted through the
    // 2-gram index visited one heap page per match. A btree entry holds ~2,700 bytes at most: longer texts
    // (a record may hold 20,000 characters) have a small index of their own and go through the 2-gram or
    // trigram index as before. The bound is the search's `keywordIndexedBytes`.
    await sql`
      CREATE INDEX ON ${sql.table(t.communications)} (tenant_id, acted_date) INCLUDE (communication_type, search_text)
       WHERE octet_length(search_text) <= 2000`.execute(trx);
    await sql`
      CREATE INDEX ON ${sql.table(t.communications)} (tenant_id, acted_date) WHERE octet_length(search_text) > 2000`.execute(
      trx,
    );
  },
  async handle(trx, events, t) {
    const records = new Map<string, RecordEntry>();
    const comments = new Map<
      string,
      {
        tenantId: string;
        id: string;
        communicationId: string;
        userId: string | null;
        comment: string | null;
        /** Edits in this batch: a new row's version, or what an existing row's version gains. */
        edits: number;
        createdAt: Date;
        deleted: boolean;
      }
    >();
    const likes = new Map<
      string,
      { tenantId: string; communicationId: string; userId: string; liked: boolean; at: Date }
    >();
    const labels = new Map<string, LabelEntry>();
    const reorders = new Map<string, string[]>();
    const reorderCounts = new Map<string, number>();
    const touchedInstitutions = new Map<string, { tenantId: string; id: string }>();
    const deletedRecords: { tenantId: string; id: string }[] = [];

    for (const recorded of events) {
      const event = decode(recorded);
      const tenantId = recorded.metadata.tenant_id;
      switch (event.type) {
        case 'CommunicationsImported':
          // Imported records are new (their ids derive from the import and the row) and come before
          // any later event of theirs; revision -1 ranks below the first event of their own stream.
          for (const fields of event.data.records)
            records.set(`${tenantId}:${fields.communication_id}`, {
              tenantId,
              fields,
              created: true,
              updates: 0,
              deleted: false,
              revision: -1,
              createdAt: recorded.created_at,
              updatedAt: recorded.created_at,
              imported: true,
            });
          break;
        case 'CommunicationCreated':
        case 'CommunicationImportAdopted':
        case 'CommunicationUpdated': {
          // An adopted record is its imported row again (same fields, version 0), now with a stream.
          const {
            tasks: _tasks,
            import_id: _import,
            imported_at: _at,
            ...fields
          } = { tasks: [], import_id: null, imported_at: null, ...event.data };
          const key = `${tenantId}:${fields.communication_id}`;
          const known = records.get(key);
          if (known) known.imported = false;
          const entry = known ?? {
            tenantId,
            fields: null,
            created: event.type !== 'CommunicationUpdated',
            updates: 0,
            deleted: false,
            revision: recorded.revision,
            createdAt: recorded.created_at,
            updatedAt: recorded.created_at,
          };
          if (event.type === 'CommunicationUpdated') entry.updates++;
          entry.fields = fields;
          entry.revision = recorded.revision;
          entry.updatedAt = recorded.created_at;
          records.set(key, entry);
          // An update may move the record to another type: the old and new institution both count.
          touchedInstitutions.set(`${tenantId}:${fields.medical_institution_id}`, {
            tenantId,
            id: fields.medical_institution_id,
          });
          break;
        }
        case 'CommunicationDeleted': {
          const key = `${tenantId}:${event.data.communication_id}`;
          const entry = records.get(key);
          if (entry) {
            entry.deleted = true;
            entry.imported = false;
          }
          deletedRecords.push({ tenantId, id: event.data.communication_id });
          touchedInstitutions.set(`${tenantId}:${event.data.medical_institution_id}`, {
            tenantId,
            id: event.data.medical_institution_id,
          });
          break;
        }
        case 'CommunicationCommentAdded':
          comments.set(`${tenantId}:${event.data.comment_id}`, {
            tenantId,
            id: event.data.comment_id,
            communicationId: event.data.communication_id,
            userId: event.data.user_id,
            comment: event.data.comment,
            edits: 0,
            createdAt: recorded.created_at,
            deleted: false,
          });
          break;
        case 'CommunicationCommentEdited': {
          const key = `${tenantId}:${event.data.comment_id}`;
          const entry = comments.get(key) ?? {
            tenantId,
            id: event.data.comment_id,
            communicationId: event.data.communication_id,
            userId: null,
            comment: null,
            edits: 0,
            createdAt: recorded.created_at,
            deleted: false,
          };
          entry.comment = event.data.comment;
          entry.edits++;
          comments.set(key, entry);
          break;
        }
        case 'CommunicationCommentDeleted': {
          const key = `${tenantId}:${event.data.comment_id}`;
          const entry = comments.get(key);
          comments.set(key, {
            tenantId,
            id: event.data.comment_id,
            communicationId: event.data.communication_id,
            userId: entry?.userId ?? null,
            comment: null,
            edits: 0,
            createdAt: recorded.created_at,
            deleted: true,
          });
          break;
        }
        case 'CommunicationLiked':
        case 'CommunicationUnliked':
          likes.set(`${tenantId}:${event.data.communication_id}:${event.data.user_id}`, {
            tenantId,
            communicationId: event.data.communication_id,
            userId: event.data.user_id,
            liked: event.type === 'CommunicationLiked',
            at: recorded.created_at,
          });
          break;
        case 'CommunicationLabelCreated':
        case 'CommunicationLabelUpdated': {
          const key = `${tenantId}:${event.data.label_id}`;
          const entry = labels.get(key) ?? {
            tenantId,
            labelId: event.data.label_id,
            definition: null,
            created: event.type === 'CommunicationLabelCreated',
            updates: 0,
            deleted: false,
            deletedAt: null,
            removedSelections: [],
            createdOrder: NEW_LABEL_ORDER + recorded.revision,
          };
          if (event.type === 'CommunicationLabelUpdated') entry.updates++;
          const kept = new Set(event.data.selections.map((sel) => sel.id));
          entry.removedSelections.push(...(entry.definition?.selections ?? []).filter((sel) => !kept.has(sel.id)));
          entry.definition = event.data;
          labels.set(key, entry);
          break;
        }
        case 'CommunicationLabelDeleted': {
          // The row stays to name the values its records keep; created or changed in this batch, it is
          // written whole, else only flagged.
          const key = `${tenantId}:${event.data.label_id}`;
          const entry = labels.get(key) ?? {
            tenantId,
            labelId: event.data.label_id,
            definition: null,
            created: false,
            updates: 0,
            deleted: false,
            deletedAt: null,
            removedSelections: [],
            createdOrder: 0,
          };
          entry.deleted = true;
          entry.deletedAt = recorded.created_at;
          labels.set(key, entry);
          break;
        }
        case 'CommunicationLabelsReordered':
          reorders.set(tenantId, event.data.label_ids);
          reorderCounts.set(tenantId, (reorderCounts.get(tenantId) ?? 0) + 1);
          break;
        default: {
          const never: never = event;
          throw new Error(`communications projection: unexpected event ${JSON.stringify(never)}`);
        }
      }
    }

    // Imported records nothing else in this batch touched: new rows, so their day totals and last
    // visits only grow. One statement inserts them and adds what was inserted (a replayed chunk adds
    // nothing); the statements below recount every key of the other events afterwards, exactly.
    const imported = [...records.values()].filter((r) => r.imported);
    for (const r of imported) records.delete(`${r.tenantId}:${r.fields!.communication_id}`);
    await insertImported(trx, t, imported);

    // The (tenant, day, type) keys whose totals this batch may change: where each touched record was
    // before (read before the writes below) and where it is now.
    const touchedRecords = [
      ...[...records.values()].flatMap((r) =>
        r.fields ? [{ tenantId: r.tenantId, id: r.fields.communication_id }] : [],
      ),
      ...deletedRecords,
    ];
    const dayKeys = new Map<string, { tenantId: string; day: string; type: string }>();
    const addDayKey = (tenantId: string, day: string, type: string) =>
      dayKeys.set(`${tenantId}:${day}:${type}`, { tenantId, day, type });
    if (touchedRecords.length > 0) {
      const { rows: before } = await sql<{ tenant_id: string; d: string; communication_type: string }>`
        SELECT c.tenant_id, to_char(c.acted_date, 'YYYY-MM-DD') AS d, c.communication_type
          FROM ${sql.table(t.communications)} c
          JOIN unnest(${sql.val(touchedRecords.map((r) => r.tenantId))}::uuid[],
                      ${sql.val(touchedRecords.map((r) => r.id))}::uuid[]) AS k(tenant_id, id)
            ON c.tenant_id = k.tenant_id AND c.id = k.id`.execute(trx);
      for (const b of before) addDayKey(b.tenant_id, b.d, b.communication_type);
    }

    const live = [...records.values()].filter((r) => !r.deleted && r.fields);
    for (const r of live) addDayKey(r.tenantId, r.fields!.acted_date, r.fields!.communication_type);
    const rows = live.map(rowOf);
    await insertRows(trx, t.communications, communicationsTable, rows, {
      onConflict: sql`ON CONFLICT (tenant_id, id) DO UPDATE SET
        communication_type = excluded.communication_type, acted_date = excluded.acted_date,
        category = excluded.category, purpose = excluded.purpose, story = excluded.story,
        event_name = excluded.event_name, memo = excluded.memo, other_memo = excluded.other_memo,
        person_in_charge_hospital = excluded.person_in_charge_hospital, attendee = excluded.attendee,
        is_doctor_attended = excluded.is_doctor_attended, user_id = excluded.user_id,
        label_values = excluded.label_values, search_text = excluded.search_text,
        version = ${sql.table(t.communications)}.version + excluded.version,
        revision = excluded.revision, updated_at = excluded.updated_at
        WHERE ${sql.table(t.communications)}.revision < excluded.revision`,
    });
    if (deletedRecords.length > 0) {
      const tenantIds = sql.val(deletedRecords.map((d) => d.tenantId));
      const ids = sql.val(deletedRecords.map((d) => d.id));
      for (const table of [t.communications, t.communication_comments, t.communication_likes]) {
        const idColumn = table === t.communications ? sql.ref('cur.id') : sql.ref('cur.communication_id');
        await sql`
          DELETE FROM ${sql.table(table)} AS cur USING unnest(${tenantIds}::uuid[], ${ids}::uuid[]) AS d(tenant_id, id)
           WHERE cur.tenant_id = d.tenant_id AND ${idColumn} = d.id`.execute(trx);
      }
    }

    if (dayKeys.size > 0) {
      const keys = [...dayKeys.values()];
      const tenantIds = sql.val(keys.map((k) => k.tenantId));
      const days = sql.val(keys.map((k) => k.day));
      const types = sql.val(keys.map((k) => k.type));
      await sql`
        DELETE FROM ${sql.table(t.communication_day_counts)} AS cur
         USING unnest(${tenantIds}::uuid[], ${days}::date[], ${types}::text[]) AS k(tenant_id, acted_date, communication_type)
         WHERE cur.tenant_id = k.tenant_id AND cur.acted_date = k.acted_date
           AND cur.communication_type = k.communication_type`.execute(trx);
      await sql`
        INSERT INTO ${sql.table(t.communication_day_counts)} (tenant_id, acted_date, communication_type, record_count)
        SELECT c.tenant_id, c.acted_date, c.communication_type, count(*)::int
          FROM unnest(${tenantIds}::uuid[], ${days}::date[], ${types}::text[]) AS k(tenant_id, acted_date, communication_type)
          JOIN ${sql.table(t.communications)} c ON c.tenant_id = k.tenant_id AND c.acted_date = k.acted_date
           AND c.communication_type = k.communication_type
         GROUP BY 1, 2, 3`.execute(trx);
    }

    const deletedIds = new Set(deletedRecords.map((d) => `${d.tenantId}:${d.id}`));
    const commentList = [...comments.values()].filter((c) => !deletedIds.has(`${c.tenantId}:${c.communicationId}`));
    const newComments = commentList.filter((c) => !c.deleted && c.userId !== null);
    await insertRows(
      trx,
      t.communication_comments,
      communicationCommentsTable,
      newComments.map((c) => ({
        tenant_id: c.tenantId,
        id: c.id,
        communication_id: c.communicationId,
        user_id: c.userId!,
        comment: c.comment!,
        version: c.edits,
        created_at: c.createdAt.toISOString(),
      })),
      {
        onConflict: sql`ON CONFLICT (tenant_id, id) DO UPDATE SET comment = excluded.comment, version = excluded.version`,
      },
    );
    const edits = commentList.filter((c) => !c.deleted && c.userId === null);
    if (edits.length > 0) {
      await sql`
        UPDATE ${sql.table(t.communication_comments)} AS cur SET comment = e.comment, version = cur.version + e.edits
          FROM unnest(${sql.val(edits.map((c) => c.tenantId))}::uuid[], ${sql.val(edits.map((c) => c.id))}::uuid[],
                      ${sql.val(edits.map((c) => c.comment))}::text[], ${sql.val(edits.map((c) => c.edits))}::int[])
               AS e(tenant_id, id, comment, edits)
         WHERE cur.tenant_id = e.tenant_id AND cur.id = e.id`.execute(trx);
    }
    const removed = commentList.filter((c) => c.deleted);
    if (removed.length > 0) {
      await sql`
        DELETE FROM ${sql.table(t.communication_comments)} AS cur
         USING unnest(${sql.val(removed.map((c) => c.tenantId))}::uuid[], ${sql.val(removed.map((c) => c.id))}::uuid[])
               AS d(tenant_id, id)
         WHERE cur.tenant_id = d.tenant_id AND cur.id = d.id`.execute(trx);
    }

    const likeList = [...likes.values()].filter((l) => !deletedIds.has(`${l.tenantId}:${l.communicationId}`));
    await insertRows(
      trx,
      t.communication_likes,
      communicationLikesTable,
      likeList
        .filter((l) => l.liked)
        .map((l) => ({
          tenant_id: l.tenantId,
          communication_id: l.communicationId,
          user_id: l.userId,
          created_at: l.at.toISOString(),
        })),
      { onConflict: sql`ON CONFLICT DO NOTHING` },
    );
    const unliked = likeList.filter((l) => !l.liked);
    if (unliked.length > 0) {
      await sql`
        DELETE FROM ${sql.table(t.communication_likes)} AS cur
         USING unnest(${sql.val(unliked.map((l) => l.tenantId))}::uuid[],
                      ${sql.val(unliked.map((l) => l.communicationId))}::uuid[],
                      ${sql.val(unliked.map((l) => l.userId))}::uuid[]) AS d(tenant_id, communication_id, user_id)
         WHERE cur.tenant_id = d.tenant_id AND cur.communication_id = d.communication_id AND cur.user_id = d.user_id`.execute(
        trx,
      );
    }

    const touched = [...touchedInstitutions.values()];
    if (touched.length > 0) {
      const tenantIds = sql.val(touched.map((x) => x.tenantId));
      const ids = sql.val(touched.map((x) => x.id));
      await sql`
        DELETE FROM ${sql.table(t.mi_last_visits)} AS cur USING unnest(${tenantIds}::uuid[], ${ids}::uuid[]) AS d(tenant_id, id)
         WHERE cur.tenant_id = d.tenant_id AND cur.medical_institution_id = d.id`.execute(trx);
      await sql`
        INSERT INTO ${sql.table(t.mi_last_visits)} (tenant_id, medical_institution_id, last_visit_date)
        SELECT c.tenant_id, c.medical_institution_id, max(c.acted_date)
          FROM unnest(${tenantIds}::uuid[], ${ids}::uuid[]) AS d(tenant_id, id)
          JOIN ${sql.table(t.communications)} c ON c.tenant_id = d.tenant_id AND c.medical_institution_id = d.id
         WHERE c.communication_type = ANY(${sql.val(visitTypes)}::text[])
         GROUP BY c.tenant_id, c.medical_institution_id`.execute(trx);
    }

    const labelList = [...labels.values()];
    await insertRows(
      trx,
      t.communication_labels,
      communicationLabelsTable,
      labelList
        .filter((l) => l.definition)
        .map((l) => ({
          tenant_id: l.tenantId,
          id: l.definition!.label_id,
          name: l.definition!.name,
          communication_type: l.definition!.communication_type,
          component_type: l.definition!.component_type,
          description: l.definition!.description,
          selections: l.definition!.selections,
          is_required: l.definition!.is_required,
          sort_order: l.createdOrder,
          version: l.updates,
          deleted_at: l.deletedAt?.toISOString() ?? null,
          deleted_selections: l.removedSelections,
        })),
      {
        // Removed choices: every choice the row knew (live or removed before) or this batch removed that
        // the new definition no longer has, once each.
        onConflict: sql`ON CONFLICT (tenant_id, id) DO UPDATE SET name = excluded.name,
          description = excluded.description, selections = excluded.selections, is_required = excluded.is_required,
          version = ${sql.table(t.communication_labels)}.version + excluded.version,
          deleted_at = excluded.deleted_at,
          deleted_selections = (
            SELECT coalesce(jsonb_agg(e.v), '[]'::jsonb) FROM (
              SELECT DISTINCT ON (c.v->>'id') c.v
                FROM jsonb_array_elements(${sql.table(t.communication_labels)}.deleted_selections
                       || excluded.deleted_selections || ${sql.table(t.communication_labels)}.selections) AS c(v)
               WHERE NOT excluded.selections @> jsonb_build_array(jsonb_build_object('id', c.v->'id'))
               ORDER BY c.v->>'id') AS e)`,
      },
    );
    const deletedLabels = labelList.filter((l) => l.deleted && !l.definition);
    if (deletedLabels.length > 0) {
      await sql`
        UPDATE ${sql.table(t.communication_labels)} AS cur SET deleted_at = d.at
          FROM unnest(${sql.val(deletedLabels.map((l) => l.tenantId))}::uuid[],
                      ${sql.val(deletedLabels.map((l) => l.labelId))}::uuid[],
                      ${sql.val(deletedLabels.map((l) => l.deletedAt!.toISOString()))}::timestamptz[])
               AS d(tenant_id, id, at)
         WHERE cur.tenant_id = d.tenant_id AND cur.id = d.id`.execute(trx);
    }
    const orders = [...reorders.entries()].flatMap(([tenantId, ids]) => ids.map((id, i) => ({ tenantId, id, i })));
    if (orders.length > 0) {
      await sql`
        UPDATE ${sql.table(t.communication_labels)} AS cur SET sort_order = o.i
          FROM unnest(${sql.val(orders.map((o) => o.tenantId))}::uuid[], ${sql.val(orders.map((o) => o.id))}::uuid[],
                      ${sql.val(orders.map((o) => o.i))}::int[]) AS o(tenant_id, id, i)
         WHERE cur.tenant_id = o.tenant_id AND cur.id = o.id`.execute(trx);
    }
    if (reorderCounts.size > 0) {
      const saves = [...reorderCounts.entries()];
      await sql`
        INSERT INTO ${sql.table(t.communication_label_orders)} AS cur (tenant_id, order_version)
        SELECT * FROM unnest(${sql.val(saves.map(([id]) => id))}::uuid[], ${sql.val(saves.map(([, n]) => n))}::int[])
        ON CONFLICT (tenant_id) DO UPDATE SET order_version = cur.order_version + excluded.order_version`.execute(trx);
    }
  },
});

const rowOf = (r: RecordEntry): WriteRow<typeof communicationsTable> => {
  const f = r.fields!;
  return {
    tenant_id: r.tenantId,
    id: f.communication_id,
    medical_institution_id: f.medical_institution_id,
    communication_type: f.communication_type,
    acted_date: f.acted_date,
    category: f.category,
    purpose: f.purpose,
    story: f.story,
    event_name: f.event_name,
    memo: f.memo,
    other_memo: f.other_memo,
    person_in_charge_hospital: f.person_in_charge_hospital,
    attendee: f.attendee,
    is_doctor_attended: f.is_doctor_attended,
    user_id: f.user_id,
    label_values: f.label_values,
    search_text: searchText(f),
    // A new row counts its updates; an existing one adds them (ON CONFLICT below).
    version: r.updates,
    revision: r.revision,
    created_at: r.createdAt.toISOString(),
    updated_at: r.updatedAt.toISOString(),
  };
};

/**
 * Rows of import chunks, set-based: inserted where absent, and the day totals and last visits of the
 * rows actually inserted added in the same statement.
 */
async function insertImported(
  trx: Transaction<unknown>,
  t: { communications: string; communication_day_counts: string; mi_last_visits: string },
  records: readonly RecordEntry[],
): Promise<void> {
  if (records.length === 0) return;
  const names = Object.keys(communicationsTable.columns);
  const list = sql.raw(names.join(', '));
  const definitions = sql.raw(
    names
      .map((c) => `${c} ${communicationsTable.columns[c as keyof typeof communicationsTable.columns].sqlType}`)
      .join(', '),
  );
  await sql`
    WITH ins AS (
      INSERT INTO ${sql.table(t.communications)} (${list})
      SELECT ${list} FROM jsonb_to_recordset(${JSON.stringify(records.map(rowOf))}::jsonb) AS r(${definitions})
      ON CONFLICT (tenant_id, id) DO NOTHING
      RETURNING tenant_id, medical_institution_id, communication_type, acted_date
    ), days AS (
      INSERT INTO ${sql.table(t.communication_day_counts)} AS cur (tenant_id, acted_date, communication_type, record_count)
      SELECT tenant_id, acted_date, communication_type, count(*)::int FROM ins GROUP BY 1, 2, 3
      ON CONFLICT (tenant_id, acted_date, communication_type) DO UPDATE SET record_count = cur.record_count + excluded.record_count
    )
    INSERT INTO ${sql.table(t.mi_last_visits)} AS cur (tenant_id, medical_institution_id, last_visit_date)
    SELECT tenant_id, medical_institution_id, max(acted_date) FROM ins
     WHERE communication_type = ANY(${sql.val(visitTypes)}::text[]) GROUP BY 1, 2
    ON CONFLICT (tenant_id, medical_institution_id) DO UPDATE
      SET last_visit_date = greatest(cur.last_visit_date, excluded.last_visit_date)`.execute(trx);
}

/**
 * Sums every (day, type) key of one tenant again from `communications`: the bench writes records
 * straight into the table and then calls this (the projection itself sums only the keys a batch touches).
 */
export async function recountTenantCommunicationDays(
  trx: Transaction<unknown>,
  t: { communications: string; communication_day_counts: string },
  tenantId: string,
): Promise<void> {
  await sql`DELETE FROM ${sql.table(t.communication_day_counts)} WHERE tenant_id = ${tenantId}`.execute(trx);
  await sql`
    INSERT INTO ${sql.table(t.communication_day_counts)} (tenant_id, acted_date, communication_type, record_count)
    SELECT tenant_id, acted_date, communication_type, count(*)::int
      FROM ${sql.table(t.communications)} WHERE tenant_id = ${tenantId}
     GROUP BY 1, 2, 3`.execute(trx);
}
