import { sql, type Expression, type Kysely, type RawBuilder, type SqlBool } from 'kysely';
import { unprocessable } from '@renkei/contracts';
import type {
  Communication,
  CommunicationLabel,
  CommunicationLabelFilter,
  CommunicationSearchBody,
  CommunicationType,
  LabelComponentType,
  MedicalInstitutionCommunicationSearchBody,
  UploadedFile,
} from '@renkei/contracts';
import { preparedStatement, type Database } from '@renkei/db';
import { normalizeKeyword } from '@renkei/institution-master';
import type { ReadModels } from '@renkei/read-models';

type SearchBody = (CommunicationSearchBody | MedicalInstitutionCommunicationSearchBody) & {
  medical_institution_id?: string;
  medical_institution_ids?: string[];
  tag_ids?: string[];
};

/**
 * One label condition on the record's values (`c.label_values`, the contract's LabelValue objects). The
 * value of the label is one element of the array; every condition of the filter holds for it. Integers,
 * dates and times compare as such (the CASE keeps a malformed stored value from failing the search: it
 * is no match instead); `text` is contained in the value as text, as it was before ranges existed.
 */
function labelCondition(f: CommunicationLabelFilter): Expression<SqlBool> {
  const ofLabel = sql<SqlBool>`v->>'label_id' = ${f.label_id}`;
  if (f.is_empty) return sql`NOT EXISTS (SELECT 1 FROM jsonb_array_elements(c.label_values) v WHERE ${ofLabel})`;
  const parts: Expression<SqlBool>[] = [ofLabel];
  if (f.text)
    parts.push(
      sql`strpos(coalesce(v->>'text_value', v->>'integer_value', v->>'date_value', v->>'time_value'), ${f.text}) > 0`,
    );
  const integer = sql`(CASE WHEN jsonb_typeof(v->'integer_value') = 'number' THEN (v->>'integer_value')::numeric END)`;
  if (f.integer_min !== undefined) parts.push(sql`${integer} >= ${f.integer_min}::numeric`);
  if (f.integer_max !== undefined) parts.push(sql`${integer} <= ${f.integer_max}::numeric`);
  const date = sql`(CASE WHEN v->>'date_value' ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}$' THEN (v->>'date_value')::date END)`;
  if (f.date_from) parts.push(sql`${date} >= ${f.date_from}::date`);
  if (f.date_to) parts.push(sql`${date} <= ${f.date_to}::date`);
  const time = sql`(CASE WHEN v->>'time_value' ~ '^[0-9]{2}:[0-9]{2}(:[0-9]{2})?$' THEN (v->>'time_value')::time END)`;
  if (f.time_from) parts.push(sql`${time} >= ${f.time_from}::time`);
  if (f.time_to) parts.push(sql`${time} <= ${f.time_to}::time`);
  if (f.selection_ids?.length)
    parts.push(sql`(v->>'selection_id' = ANY(${sql.val(f.selection_ids)}::text[])
      OR (v->'selection_ids') ?| ${sql.val(f.selection_ids)}::text[])`);
  if (f.own_department_ids?.length)
    parts.push(sql`v->>'own_department_id' = ANY(${sql.val(f.own_department_ids)}::text[])`);
  return sql`EXISTS (SELECT 1 FROM jsonb_array_elements(c.label_values) v WHERE ${sql.join(parts, sql` AND `)})`;
}

/** Which fields of a label condition each component type's value can meet (`is_empty` fits them all). */
const labelFilterFields: Record<LabelComponentType, readonly (keyof CommunicationLabelFilter)[]> = {
  text: ['text'],
  textarea: ['text'],
  integer: ['text', 'integer_min', 'integer_max'],
  date: ['text', 'date_from', 'date_to'],
  time: ['text', 'time_from', 'time_to'],
  select: ['selection_ids'],
  radio: ['selection_ids'],
  checkbox: ['selection_ids'],
  own_department: ['own_department_ids'],
  area: [],
};
const valueFields = [
  'text',
  'integer_min',
  'integer_max',
  'date_from',
  'date_to',
  'time_from',
  'time_to',
  'selection_ids',
  'own_department_ids',
] as const satisfies readonly (keyof CommunicationLabelFilter)[];

/**
 * Refuses (422, naming `label_filters.<i>.<field>`) a condition that the label's component type cannot
 * meet: a date range on an integer label would silently find nothing. A label the tenant does not have
 * (deleted since a link was made, or another tenant's) is not refused: its conditions find nothing, so
 * an old link still opens and nothing tells one tenant's labels from another's.
 */
export async function checkLabelFilters(
  db: Database,
  tenantId: string,
  filters: readonly CommunicationLabelFilter[] | undefined,
): Promise<void> {
  if (!filters?.length) return;
  const labels = await query(
    db,
    sql<{ id: string; name: string; component_type: LabelComponentType }>`
      SELECT id, name, component_type FROM rm.communication_labels
       WHERE tenant_id = ${tenantId} AND id = ANY(${sql.val([...new Set(filters.map((f) => f.label_id))])}::uuid[])`,
  );
  const byId = new Map(labels.map((l) => [l.id, l]));
  const errors = filters.flatMap((f, i) => {
    const label = byId.get(f.label_id);
    if (!label || f.is_empty) return [];
    const allowed = labelFilterFields[label.component_type];
    return valueFields
      .filter((k) => f[k] !== undefined && !allowed.includes(k))
      .map((k) => ({
        field: `label_filters.${i}.${k}`,
        message: `ラベル「${label.name}」には指定できない条件です`,
      }));
  });
  if (errors.length) throw unprocessable(errors);
}

/**
 * The search's conditions. `byDay` says that only the tenant, the period and the types are asked, so
 * the per-day totals (`communication_day_counts`) give the exact count; `byPeriodAndKeyword` that a
 * period and a keyword are asked besides them and nothing else, so the keyword text index counts it
 * (`keywordCount`). `forCount` leaves out what only confirms an exact index condition, so a count can be
 * answered from index pages alone; `keywordScan` tests the keyword with strpos alone.
 */
function conditions(
  tenantId: string,
  body: SearchBody,
  { forCount = false, keywordScan = false } = {},
): { where: Expression<SqlBool>[]; byDay: boolean; byPeriodAndKeyword: boolean } {
  const where: Expression<SqlBool>[] = [sql<SqlBool>`c.tenant_id = ${tenantId}`];
  if (body.period) where.push(sql`c.acted_date BETWEEN ${body.period.from}::date AND ${body.period.to}::date`);
  if (body.communication_types?.length)
    where.push(sql`c.communication_type = ANY(${sql.val(body.communication_types)}::text[])`);
  // Every condition below is one the day totals cannot answer: any of them makes the count read records.
  const dayConditions = where.length;
  if (body.medical_institution_id) where.push(sql`c.medical_institution_id = ${body.medical_institution_id}`);
  if (body.user_ids?.length) where.push(sql`c.user_id = ANY(${sql.val(body.user_ids)}::uuid[])`);
  if (body.medical_institution_ids?.length)
    where.push(sql`c.medical_institution_id = ANY(${sql.val(body.medical_institution_ids)}::uuid[])`);
  if (body.tag_ids?.length)
    where.push(sql`EXISTS (SELECT 1 FROM rm.mi_tags x WHERE x.tenant_id = c.tenant_id
      AND x.medical_institution_id = c.medical_institution_id AND x.tag_id = ANY(${sql.val(body.tag_ids)}::uuid[]))`);
  if (body.is_doctor_attended !== undefined) where.push(sql`c.is_doctor_attended = ${body.is_doctor_attended}`);
  let keywordAsked = false;
  if (body.keyword) {
    const k = normalizeKeyword(body.keyword);
    keywordAsked = k !== '';
    // Characters, not UTF-16 units: a kanji outside the BMP is one character to `rm.search_bigrams`.
    const length = [...k].length;
    if (keywordScan && k) where.push(sql`strpos(c.search_text, ${k}) > 0`);
    // Three characters or more: LIKE, which the trigram index serves (communications projection v2).
    // Two: the 2-gram index (projection v3; the strpos beside it only confirms). One character has
    // neither, and strpos reads the rows the other conditions leave.
    else if (length >= 3) where.push(sql`c.search_text LIKE ${`%${k.replace(/[\\%_]/g, (m) => `\\${m}`)}%`}`);
    // For a count, the 2-gram containment alone: a two-character keyword is in the text exactly when
    // it is one of its 2-grams, so the strpos that confirms it for the page adds nothing but a heap
    // read per match (the index pages and the all-visible map answer a count otherwise).
    else if (length === 2 && forCount) where.push(sql`rm.search_bigrams(c.search_text) @> ARRAY[${k}]::text[]`);
    else if (length === 2)
      where.push(sql`(rm.search_bigrams(c.search_text) @> ARRAY[${k}]::text[] AND strpos(c.search_text, ${k}) > 0)`);
    else if (k) where.push(sql`strpos(c.search_text, ${k}) > 0`);
  }
  for (const f of body.label_filters ?? []) where.push(labelCondition(f));
  return {
    where,
    byDay: where.length === dayConditions,
    byPeriodAndKeyword: body.period !== undefined && keywordAsked && where.length === dayConditions + 1,
  };
}

/**
 * Keyword texts up to this many bytes are in the covering keyword index (communications projection
 * v6); a btree entry holds at most ~2,700 bytes, and a record's three texts may hold 20,000 characters.
 */
const keywordIndexedBytes = 2000;

const commonKeywordShare = 0.04;
const coveredPeriodDays = 366;

/**
 * Whether the covering index should count a period-and-keyword search: when the keyword is common (the
 * planner's own estimate of its share of the tenant's records, from the 2-gram or trigram index's
 * statistics, is at least `commonKeywordShare`) and the period at most `coveredPeriodDays` long. Its cost
 * follows the period's records (~0.5 µs an entry at 1,000,000 records), the 2-gram count's the keyword's
 * matches (a heap page each, ~12 µs, until most of the table's pages are read anyway): a rare keyword
 * (眼科: ~1 ms) or a period of several years (面談 over three 年度: ~270 against ~430 ms) stay with the
 * 2-gram count; 面談 over a quarter took ~230 ms that way and ~45 ms this way (docs/benchmarks.md).
 */
async function countsByCoveringIndex(db: Database, tenantId: string, body: SearchBody): Promise<boolean> {
  const from = Date.parse(body.period!.from);
  const to = Date.parse(body.period!.to);
  if (!(to - from <= coveredPeriodDays * 86_400_000)) return false;
  const keyword = conditions(tenantId, { keyword: body.keyword } as SearchBody, { forCount: true }).where;
  const estimate = async (where: Expression<SqlBool>) => {
    const rows = await query(
      db,
      sql<{ 'QUERY PLAN': [{ Plan: { 'Plan Rows': number } }] }>`
      EXPLAIN (FORMAT JSON) SELECT 1 FROM rm.communications c WHERE ${where}`,
    );
    return rows[0]!['QUERY PLAN'][0].Plan['Plan Rows'];
  };
  const [matches, records] = await Promise.all([
    estimate(sql.join(keyword, sql` AND `)),
    estimate(sql<SqlBool>`c.tenant_id = ${tenantId}`),
  ]);
  return matches >= commonKeywordShare * Math.max(records, 1);
}

/**
 * The count of a search that asks a period and a keyword (and types) only: the period's records with a
 * short text are counted from the covering index `(tenant, acted_date) INCLUDE (type, text)` alone,
 * strpos on each entry, the few with a long text through their own small index and the keyword's text
 * index. Through the 2-gram or trigram index, a common keyword (面談) visited one heap page per match:
 * ~14,000 pages for a quarter at 1,000,000 records against ~2,000 index pages here (docs/decisions.md).
 * Its cost follows the records of the period, not the keyword's matches.
 */
function keywordCount(tenantId: string, body: SearchBody) {
  const short = conditions(tenantId, body, { forCount: true, keywordScan: true }).where;
  const long = conditions(tenantId, body, { forCount: true }).where;
  return sql<{ n: string }>`
    SELECT (SELECT count(*) FROM rm.communications c
             WHERE ${sql.join(short, sql` AND `)} AND octet_length(c.search_text) <= ${keywordIndexedBytes})
         + (SELECT count(*) FROM rm.communications c
             WHERE ${sql.join(long, sql` AND `)} AND octet_length(c.search_text) > ${keywordIndexedBytes}) AS n`;
}

const sortColumns = { acted_date: sql`c.acted_date`, created_at: sql`c.created_at`, updated_at: sql`c.updated_at` };

/**
 * The records of a page with everything they show (institution and staff names, e-mail, tasks,
 * comments, likes, VOCs), each assembled by Postgres as the contract's JSON in one statement, in the
 * order of `$2`. One statement instead of seven in two waves (docs/decisions.md, "Communication details
 * in one statement"): every statement the handler sends costs its building, a round trip and its
 * result's mapping on top of the database's own work. Its text never changes, so it is a named
 * statement, parsed once per connection. Every table is read for the tenant `$1` only; the institution
 * master (`ref`) is shared by all tenants.
 */
const detailsSql = `
WITH page AS (SELECT id, n FROM unnest($2::uuid[]) WITH ORDINALITY AS p(id, n)),
  -- The VOCs of the whole page in one pass (no index on the array): each record picks its own below.
  page_vocs AS MATERIALIZED (
    SELECT v.id, v.title, v.status, v.priority, v.reported_date, v.communication_ids FROM rm.vocs v
     WHERE v.tenant_id = $1 AND v.communication_ids && $2::uuid[])
SELECT json_build_object(
  'id', c.id,
  'communication_type', c.communication_type,
  'acted_date', to_char(c.acted_date, 'YYYY-MM-DD'),
  'category', c.category,
  'purpose', c.purpose,
  'story', c.story,
  'email', (SELECT json_build_object('id', e.id, 'title', e.title)
              FROM rm.email_communications ec JOIN rm.emails e ON e.tenant_id = ec.tenant_id AND e.id = ec.email_id
             WHERE ec.tenant_id = $1 AND ec.communication_id = c.id),
  'attachments', '[]'::json,
  'event_name', c.event_name,
  'memo', c.memo,
  'other_memo', c.other_memo,
  'user', json_build_object('id', c.user_id, 'name', coalesce(
    (SELECT a.name FROM rm.mi_accounts a WHERE a.tenant_id = $1 AND a.account_id = c.user_id), '')),
  'person_in_charge_hospital', c.person_in_charge_hospital,
  'attendee', c.attendee,
  'is_doctor_attended', c.is_doctor_attended,
  'medical_institution', json_build_object('id', c.medical_institution_id, 'name', coalesce(
    (SELECT i.name FROM ref.medical_institutions i WHERE i.id = c.medical_institution_id), '')),
  'tasks', coalesce((
    SELECT json_agg(json_build_object('id', t.id, 'title', t.title, 'status', t.status,
             'deadline', to_char(t.deadline, 'YYYY-MM-DD'),
             'staff', CASE WHEN t.staff_id IS NOT NULL THEN json_build_object('id', t.staff_id, 'name', coalesce(a.name, '')) END)
             ORDER BY t.created_at, t.id)
      FROM rm.tasks t LEFT JOIN rm.mi_accounts a ON a.tenant_id = t.tenant_id AND a.account_id = t.staff_id
     WHERE t.tenant_id = $1 AND t.communication_id = c.id), '[]'),
  'comments', coalesce((
    SELECT json_agg(json_build_object('id', m.id, 'user', json_build_object('id', m.user_id, 'name', coalesce(a.name, '')),
             'created_date', to_char(m.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
             'comment', m.comment, 'version', m.version)
             ORDER BY m.created_at, m.id)
      FROM rm.communication_comments m LEFT JOIN rm.mi_accounts a ON a.tenant_id = m.tenant_id AND a.account_id = m.user_id
     WHERE m.tenant_id = $1 AND m.communication_id = c.id), '[]'),
  'likes', coalesce((
    SELECT json_agg(json_build_object('user', json_build_object('id', l.user_id, 'name', coalesce(a.name, '')))
             ORDER BY l.created_at, l.user_id)
      FROM rm.communication_likes l LEFT JOIN rm.mi_accounts a ON a.tenant_id = l.tenant_id AND a.account_id = l.user_id
     WHERE l.tenant_id = $1 AND l.communication_id = c.id), '[]'),
  'label_values', c.label_values,
  'vocs', coalesce((
    SELECT json_agg(json_build_object('id', v.id, 'title', v.title, 'status', v.status, 'priority', v.priority)
             ORDER BY v.reported_date DESC, v.id)
      FROM page_vocs v WHERE c.id = ANY(v.communication_ids)), '[]'),
  -- toISOString's form (milliseconds, Z), as the records were answered before.
  'created_at', to_char(c.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
  'updated_at', to_char(c.updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
  'version', c.version) AS r
  FROM page p JOIN rm.communications c ON c.tenant_id = $1 AND c.id = p.id
 ORDER BY p.n`;

/** Files of the page's records, by record id (with their signed links). */
export type AttachmentsOf = (ids: string[]) => Promise<Map<string, UploadedFile[]>>;

async function withDetails(
  db: Database,
  tenantId: string,
  ids: string[],
  attachmentsOf?: AttachmentsOf,
): Promise<Communication[]> {
  if (ids.length === 0) return [];
  const [{ rows }, files] = await Promise.all([
    db.pool.query<{ r: Communication }>(preparedStatement(db, 'communication_details_v1', detailsSql)([tenantId, ids])),
    attachmentsOf?.(ids),
  ]);
  // The objects are this call's own (parsed from the statement's JSON): filled in place, not copied.
  return rows.map(({ r }) => {
    const attached = files?.get(r.id);
    if (attached) r.attachments = attached;
    return r;
  });
}

/** Sends a built statement straight to the pool: Kysely's executor adds nothing these reads need. */
async function query<R>(db: Database, statement: RawBuilder<R>): Promise<R[]> {
  const { sql: text, parameters } = statement.compile(db.kysely);
  return (await db.pool.query(text, parameters as unknown[])).rows as R[];
}

export async function searchCommunications(
  db: Database,
  tenantId: string,
  body: SearchBody,
  attachmentsOf?: AttachmentsOf,
) {
  const dir = body.sort === 'asc' ? sql`ASC` : sql`DESC`;
  const page = conditions(tenantId, body);
  const where = sql.join(page.where, sql` AND `);
  // The page and the count as two statements: a window count over the page query made Postgres read and
  // sort every matching row with all its columns (16 s for a tenant's 1,000,000 records, docs/benchmarks.md);
  // alone, the page reads only its rows in index order. The count sums the per-day totals when only the
  // period and the types are asked (a million records are ~10,000 day rows), reads the covering keyword
  // index when a common keyword is asked besides them over at most a year, else counts the records.
  const count = page.byDay
    ? sql<{ n: string }>`
        SELECT coalesce(sum(d.record_count), 0) AS n FROM rm.communication_day_counts d
         WHERE d.tenant_id = ${tenantId}${body.period ? sql` AND d.acted_date BETWEEN ${body.period.from}::date AND ${body.period.to}::date` : sql``}${body.communication_types?.length ? sql` AND d.communication_type = ANY(${sql.val(body.communication_types)}::text[])` : sql``}`
    : sql<{ n: string }>`
        SELECT count(*) AS n FROM rm.communications c
         WHERE ${sql.join(conditions(tenantId, body, { forCount: true }).where, sql` AND `)}`;
  // The page's ids only: the details statement reads the records themselves with everything they show.
  // The label conditions' check beside them: a refused one answers 422 and the rows go unused.
  const [ids, counted] = await Promise.all([
    query(
      db,
      sql<{ id: string }>`
      SELECT c.id FROM rm.communications c
       WHERE ${where}
       ORDER BY ${sortColumns[body.sort_by]} ${dir}, c.created_at ${dir}, c.id ${dir}
       LIMIT ${body.per_page} OFFSET ${(body.page - 1) * body.per_page}`,
    ),
    (page.byPeriodAndKeyword ? countsByCoveringIndex(db, tenantId, body) : Promise.resolve(false)).then((covering) =>
      query(db, covering ? keywordCount(tenantId, body) : count),
    ),
    checkLabelFilters(db, tenantId, body.label_filters),
  ]);
  const total = Number(counted[0]!.n);
  return {
    data: await withDetails(
      db,
      tenantId,
      ids.map((r) => r.id),
      attachmentsOf,
    ),
    meta: {
      total_count: total,
      page: body.page,
      per_page: body.per_page,
      total_pages: Math.ceil(total / body.per_page),
    },
  };
}

export async function getCommunication(
  db: Database,
  tenantId: string,
  id: string,
  attachmentsOf?: AttachmentsOf,
): Promise<Communication | null> {
  // The details statement answers nothing for an id that is not the tenant's record.
  return (await withDetails(db, tenantId, [id], attachmentsOf))[0] ?? null;
}

export async function listCommunicationLabels(
  db: Kysely<ReadModels>,
  tenantId: string,
  communicationType: CommunicationType | undefined,
  includeDeleted = false,
): Promise<CommunicationLabel[]> {
  // `order` is the place among all the tenant's live labels, as the command side answers it. Deleted
  // labels (asked for only to name the values records keep of them) are flagged and answer their choices
  // removed before too.
  const rows = await db
    .selectFrom('rm.communication_labels')
    .selectAll()
    .select(
      sql<number>`(count(*) FILTER (WHERE deleted_at IS NULL) OVER (ORDER BY sort_order, id ROWS UNBOUNDED PRECEDING) - 1)::int`.as(
        'position',
      ),
    )
    .where('tenant_id', '=', tenantId)
    .$if(!includeDeleted, (q) => q.where('deleted_at', 'is', null))
    .orderBy('sort_order')
    .orderBy('id')
    .execute();
  return rows
    .filter((r) => !communicationType || r.communication_type === communicationType)
    .map((r) => ({
      id: r.id,
      name: r.name,
      communication_type: r.communication_type as CommunicationType,
      component_type: r.component_type as LabelComponentType,
      order: r.position,
      description: r.description,
      selections: r.selections,
      is_required: r.is_required,
      version: r.version,
      ...(includeDeleted ? { is_deleted: r.deleted_at !== null, deleted_selections: r.deleted_selections } : {}),
    }));
}

/** Saves of the tenant's label order (0 before the first): the command side's order version. */
export async function communicationLabelOrderVersion(db: Kysely<ReadModels>, tenantId: string): Promise<number> {
  const row = await db
    .selectFrom('rm.communication_label_orders')
    .select('order_version')
    .where('tenant_id', '=', tenantId)
    .executeTakeFirst();
  return row?.order_version ?? 0;
}
