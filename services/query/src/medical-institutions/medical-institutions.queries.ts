import { sql, type Kysely, type RawBuilder } from 'kysely';
import { rollupPieces, type ReadModels } from '@renkei/read-models';
import type {
  MedicalInstitution,
  MedicalInstitutionSearchConditions,
  MedicalInstitutionSortKey,
  LabelValue,
  Period,
  ReferralFigureFilters,
} from '@renkei/contracts';
import {
  departments,
  facilityTypes,
  normalizeKeyword,
  runningStatusLabels,
  type RunningStatus,
} from '@renkei/institution-master';

const departmentById = new Map(departments.map((d) => [d.id, d]));
const facilityTypeById = new Map(facilityTypes.map((t) => [t.id, t]));

/** Master codes travel as strings (`"01"`); the master stores integers. */
const departmentCode = (id: number) => String(id).padStart(2, '0');
const codeToInt = (codes: readonly string[]) => codes.map(Number).filter((n) => Number.isInteger(n));

const likeEscape = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * The WHERE clause of partner search over `ref.medical_institutions m` for one tenant; tenant data
 * (phase `ph`, tags, label values) is reached through this tenant's rows only.
 */
export async function searchConditions(
  db: Kysely<ReadModels>,
  tenantId: string,
  c: MedicalInstitutionSearchConditions,
): Promise<RawBuilder<unknown>> {
  const parts: RawBuilder<unknown>[] = [sql`true`];
  if (c.keyword) {
    const k = normalizeKeyword(c.keyword);
    if (k) parts.push(keywordCondition(k));
  }
  if (c.prefectures?.length) parts.push(sql`m.prefecture_code = ANY(${sql.val(codeToInt(c.prefectures))}::smallint[])`);
  if (c.cities?.length) parts.push(sql`m.city = ANY(${sql.val(c.cities.map((x) => x.normalize('NFKC')))}::text[])`);
  if (c.facility_type_ids?.length)
    parts.push(sql`m.facility_type_id = ANY(${sql.val(codeToInt(c.facility_type_ids))}::int[])`);
  if (c.department_ids?.length) parts.push(sql`m.department_ids && ${sql.val(codeToInt(c.department_ids))}::int[]`);
  if (c.running_statuses?.length) parts.push(sql`m.running_status = ANY(${sql.val(c.running_statuses)}::text[])`);
  if (c.area_ids?.length) parts.push(await areaCondition(db, tenantId, c.area_ids));
  for (const group of c.tag_filter_groups ?? []) {
    // Correlated EXISTS on the tenant's (institution, tag) key: Postgres turns them into semi/anti
    // joins or primary-key probes, never a GROUP BY … count(DISTINCT) over all of the tenant's tags
    // (that aggregate cost ~150 ms per search on 20,000 tagged institutions).
    const ids = [...new Set(group.tag_ids)];
    const tagged = (match: RawBuilder<unknown>) =>
      sql`EXISTS (SELECT 1 FROM rm.mi_tags x WHERE x.tenant_id = ${tenantId} AND x.medical_institution_id = m.id AND ${match})`;
    const anyTag = tagged(sql`x.tag_id = ANY(${sql.val(ids)}::uuid[])`);
    const allTags =
      ids.length === 0
        ? sql`false`
        : sql`(${sql.join(
            ids.map((id) => tagged(sql`x.tag_id = ${id}`)),
            sql` AND `,
          )})`;
    const [set, negated] =
      group.logic === 'and'
        ? [allTags, false]
        : group.logic === 'or'
          ? [anyTag, false]
          : group.logic === 'nand'
            ? [allTags, true]
            : [anyTag, true];
    const excluded = negated !== (group.search_condition === 'exclude');
    parts.push(excluded ? sql`NOT ${set}` : set);
  }
  if (c.phase_master_ids?.length || c.include_no_phase) {
    const ids = c.phase_master_ids ?? [];
    parts.push(
      c.include_no_phase
        ? sql`(ph.phase_master_id IS NULL OR ph.phase_master_id = ANY(${sql.val(ids)}::uuid[]))`
        : sql`ph.phase_master_id = ANY(${sql.val(ids)}::uuid[])`,
    );
  }
  for (const f of c.label_filters ?? []) {
    const v = sql`v.tenant_id = ${tenantId} AND v.medical_institution_id = m.id AND v.label_id = ${f.label_id}`;
    if (f.is_empty) {
      parts.push(sql`NOT EXISTS (SELECT 1 FROM rm.mi_label_values v WHERE ${v})`);
      continue;
    }
    const conds: RawBuilder<unknown>[] = [v];
    if (f.text) conds.push(sql`v.text_value ILIKE ${'%' + likeEscape(f.text) + '%'}`);
    if (f.integer_min !== undefined) conds.push(sql`v.integer_value >= ${f.integer_min}`);
    if (f.integer_max !== undefined) conds.push(sql`v.integer_value <= ${f.integer_max}`);
    if (f.date_from) conds.push(sql`v.date_value >= ${f.date_from}::date`);
    if (f.date_to) conds.push(sql`v.date_value <= ${f.date_to}::date`);
    if (f.selection_ids?.length)
      conds.push(
        sql`(v.selection_id = ANY(${sql.val(f.selection_ids)}::uuid[]) OR v.selection_ids && ${sql.val(f.selection_ids)}::uuid[])`,
      );
    if (f.own_department_ids?.length)
      conds.push(sql`v.own_department_id = ANY(${sql.val(f.own_department_ids)}::uuid[])`);
    if (f.area_ids?.length) conds.push(sql`v.area_id = ANY(${sql.val(f.area_ids)}::uuid[])`);
    parts.push(sql`EXISTS (SELECT 1 FROM rm.mi_label_values v WHERE ${sql.join(conds, sql` AND `)})`);
  }
  if (c.visited_period) parts.push(visitedWithin(tenantId, c.visited_period));
  if (c.not_visited_since)
    parts.push(sql`(lv.last_visit_date IS NULL OR lv.last_visit_date < ${c.not_visited_since}::date)`);
  return sql.join(parts, sql` AND `);
}

/** Communication types that count as a visit (as the last visit date counts them). */
const visitTypes = ['visit', 'new_visit'];

/**
 * A visit within the period. The last visit is on or after its first day whenever there was one: that
 * strict test on `lv` lets the planner start from the (tenant, last_visit_date) index and read only the
 * institutions visited since. A last visit inside the period settles it; one after the period leaves an
 * earlier visit to be found, by a probe of the (tenant, institution, acted_date) index of the records.
 */
function visitedWithin(tenantId: string, period: Period): RawBuilder<unknown> {
  return sql`(lv.last_visit_date >= ${period.from}::date AND (lv.last_visit_date <= ${period.to}::date OR EXISTS (
    SELECT 1 FROM rm.communications cv
     WHERE cv.tenant_id = ${tenantId} AND cv.medical_institution_id = m.id
       AND cv.acted_date >= ${period.from}::date AND cv.acted_date <= ${period.to}::date
       AND cv.communication_type = ANY(${sql.val(visitTypes)}::text[]))))`;
}

const referralFigureKeys = [
  'min_referral_count',
  'max_referral_count',
  'min_comparison_referral_count',
  'max_comparison_referral_count',
  'min_rate_of_referral_change',
  'max_rate_of_referral_change',
] as const satisfies readonly (keyof ReferralFigureFilters)[];

/** Whether the body filters on a referral figure (and so needs `referralJoin` in its WHERE). */
export const hasReferralFilter = (f: Partial<ReferralFigureFilters>) =>
  referralFigureKeys.some((key) => f[key] !== undefined);

/**
 * The referral figure ranges over `rf` (`referralJoin`). The rate is compared in percent without a
 * division, (n − c) × 100 against bound × c, so a bound equal to a shown rate matches it exactly; a
 * comparison count of 0 has no rate and never matches a rate bound.
 */
export function referralFigureCondition(f: Partial<ReferralFigureFilters>): RawBuilder<unknown> {
  const parts: RawBuilder<unknown>[] = [sql`true`];
  const count = (column: RawBuilder<unknown>, min: number | undefined, max: number | undefined) => {
    if (min !== undefined) parts.push(sql`${column} >= ${min}::int`);
    if (max !== undefined) parts.push(sql`${column} <= ${max}::int`);
  };
  count(sql`rf.referral_count`, f.min_referral_count, f.max_referral_count);
  count(sql`rf.comparison_referral_count`, f.min_comparison_referral_count, f.max_comparison_referral_count);
  const [minRate, maxRate] = [f.min_rate_of_referral_change, f.max_rate_of_referral_change];
  if (minRate !== undefined || maxRate !== undefined) {
    const change = sql`(rf.referral_count - rf.comparison_referral_count)::numeric * 100`;
    parts.push(sql`rf.comparison_referral_count > 0`);
    if (minRate !== undefined) parts.push(sql`${change} >= ${minRate}::numeric * rf.comparison_referral_count`);
    if (maxRate !== undefined) parts.push(sql`${change} <= ${maxRate}::numeric * rf.comparison_referral_count`);
  }
  return sql.join(parts, sql` AND `);
}

/**
 * A substring test of the normalised keyword on `m.search_text`, in the form an index can serve:
 * - 3+ characters: LIKE, served by the trigram index (pg_trgm, where installed).
 * - 2 characters: the 2-gram index (`ref.search_bigrams`, master migration 0002). The strpos beside it
 *   is the same test and far cheaper than the 2-gram function (~15 µs a row): when the planner fills a
 *   page by walking the kana index instead (a common 2-gram such as 病院 matches every few rows), it
 *   runs the cheaper filter first, so the function only runs on rows that match anyway.
 * - 1 character: matches much of the country, so a scan of the column; strpos rather than LIKE, which
 *   made the planner read the whole trigram index (~700 ms on 180,000 rows).
 */
function keywordCondition(k: string): RawBuilder<unknown> {
  const length = [...k].length;
  if (length >= 3) return sql`m.search_text LIKE ${'%' + likeEscape(k) + '%'}`;
  if (length === 2)
    return sql`(ref.search_bigrams(m.search_text) @> ARRAY[${k}]::text[] AND strpos(m.search_text, ${k}) > 0)`;
  return sql`strpos(m.search_text, ${k}) > 0`;
}

/** Areas of `area` labels name prefectures and cities; an institution is in the area when its address is. */
async function areaCondition(
  db: Kysely<ReadModels>,
  tenantId: string,
  areaIds: readonly string[],
): Promise<RawBuilder<unknown>> {
  const { rows } = await sql<{
    areas: { id: string; addresses: { prefecture: string; city_or_locality: string }[] }[];
  }>`
    SELECT areas FROM rm.medical_institution_labels WHERE tenant_id = ${tenantId} AND component_type = 'area'`.execute(
    db,
  );
  const wanted = new Set(areaIds);
  const addresses = rows.flatMap((r) => r.areas.filter((a) => wanted.has(a.id)).flatMap((a) => a.addresses));
  if (addresses.length === 0) return sql`false`;
  return sql`(${sql.join(
    addresses.map((a) =>
      a.city_or_locality
        ? sql`(m.prefecture_code = ${Number(a.prefecture)} AND (m.city = ${a.city_or_locality} OR m.address LIKE ${'%' + likeEscape(a.city_or_locality) + '%'}))`
        : sql`m.prefecture_code = ${Number(a.prefecture)}`,
    ),
    sql` OR `,
  )})`;
}

const sortColumns: Record<MedicalInstitutionSortKey, RawBuilder<unknown>> = {
  name: sql`m.name`,
  kana: sql`m.kana`,
  code: sql`m.code`,
  address: sql`m.address`,
  running_status: sql`m.running_status`,
  phase: sql`pm.sort_order`,
  // From the referral rollups (referralJoin) and the last visits.
  referral_count: sql`rf.referral_count`,
  comparison_referral_count: sql`rf.comparison_referral_count`,
  rate_of_referral_change: sql`((rf.referral_count - rf.comparison_referral_count)::numeric / nullif(rf.comparison_referral_count, 0))`,
  last_visit_date: sql`lv.last_visit_date`,
};

/**
 * `selective`: the filter already narrows the master through an index (a keyword of 3+ characters
 * uses the trigram index), so the sort key is wrapped to keep the planner from walking the kana
 * index instead: matches of one name cluster in kana order, and that walk filtered ~30,000 rows
 * to fill one page where the trigram bitmap plus a top-N sort reads only the matches.
 */
export function orderBy(
  sortBy: MedicalInstitutionSortKey,
  direction: 'asc' | 'desc',
  selective = false,
): RawBuilder<unknown> {
  const dir = direction === 'desc' ? sql`DESC` : sql`ASC`;
  const textual = !['phase', 'referral_count', 'comparison_referral_count', 'rate_of_referral_change'].includes(sortBy);
  const column = selective && textual ? sql`(${sortColumns[sortBy]} || '')` : sortColumns[sortBy];
  return sql`${column} ${dir} NULLS LAST, m.id ${dir}`;
}

/** Whether the keyword can use the trigram index (pg_trgm needs 3 characters to extract a trigram). */
const selectiveKeyword = (keyword: string | undefined) =>
  keyword !== undefined && [...normalizeKeyword(keyword)].length >= 3;

export const fromClause = (tenantId: string) => sql`
  ref.medical_institutions m
  LEFT JOIN rm.mi_phases ph ON ph.tenant_id = ${tenantId} AND ph.medical_institution_id = m.id
  LEFT JOIN rm.phase_masters pm ON pm.tenant_id = ${tenantId} AND pm.id = ph.phase_master_id
  LEFT JOIN rm.mi_last_visits lv ON lv.tenant_id = ${tenantId} AND lv.medical_institution_id = m.id`;

/**
 * `rf`: an institution's referrals in the search's referral period and comparison period, summed from
 * the monthly rollups (a period counts the whole months it touches). Without periods the figures are
 * null, as before, and nothing is read.
 *
 * `lateral` (a page's rows): a lookup per institution. `grouped` (ordering the whole search by a
 * referral figure): each period's figure of every institution from the tenant's per-institution
 * rollups, joined to the master: one row per institution when the period is one rollup row
 * (`singleRollupRow`: a 年度, or 年度 to a month, the default comparisons), else the period's whole
 * 年度, quarters and months (`rollupPieces`) summed by institution. At 20,000 institutions and
 * 5,000,000 referrals the lateral form summed the own-department rollups once per institution (1.5-2 s);
 * the pieces of both periods in one grouped pass read 40,000 rows from the heap and sorted them twice.
 */
export function referralJoin(
  tenantId: string,
  periods: {
    referral_period?: Period | undefined;
    comparison_referral_period?: Period | undefined;
  } & Partial<ReferralFigureFilters>,
  form: 'lateral' | 'grouped' = 'lateral',
) {
  const { referral_period: p, comparison_referral_period: c } = periods;
  if (!p && !c)
    return sql`LEFT JOIN LATERAL (SELECT NULL::int AS referral_count, NULL::int AS comparison_referral_count) rf ON true`;
  const within = (period: Period | undefined) =>
    period ? sql`r.month >= date_trunc('month', ${period.from}::date) AND r.month <= ${period.to}::date` : sql`false`;
  if (form === 'lateral')
    return sql`LEFT JOIN LATERAL (
    SELECT ${p ? sql`coalesce(sum(r.referral_count) FILTER (WHERE ${within(p)}), 0)::int` : sql`NULL::int`} AS referral_count,
           ${c ? sql`coalesce(sum(r.referral_count) FILTER (WHERE ${within(c)}), 0)::int` : sql`NULL::int`} AS comparison_referral_count
      FROM rm.referral_monthly_rollups r WHERE r.tenant_id = ${tenantId} AND r.medical_institution_id = m.id) rf ON true`;
  // One period's figure per institution: one row each when the period is a single rollup row (a whole
  // 年度, or months from April: a 年度-to-month total), read in institution order from the covering
  // index and merged with the master's; else the period's rows summed by institution.
  const figure = (period: Period) => {
    const single = singleRollupRow(period);
    if (single)
      return sql`SELECT r.medical_institution_id, r.referral_count FROM rm.referral_institution_rollups r
                  WHERE r.tenant_id = ${tenantId} AND r.span = ${single.span} AND r.period_start = ${single.start}::date`;
    const pieces = rollupPieces(period);
    return sql`SELECT r.medical_institution_id, sum(r.referral_count)::int AS referral_count
                 FROM rm.referral_institution_rollups r
                WHERE r.tenant_id = ${tenantId}
                  AND ((r.span = 'fiscal_year' AND r.period_start = ANY(${pieces.fiscal_year}::date[]))
                    OR (r.span = 'quarter' AND r.period_start = ANY(${pieces.quarter}::date[]))
                    OR (r.span = 'month' AND r.period_start = ANY(${pieces.month}::date[])))
                GROUP BY r.medical_institution_id`;
  };
  // A filter that a count of 0 cannot pass (a minimum of 1 or more; a rate needs a comparison count)
  // makes the join inner, so the planner may start from the institutions that have rollup rows.
  const needed = (min: number | undefined) => min !== undefined && min > 0;
  const pJoin = needed(periods.min_referral_count) ? sql`JOIN` : sql`LEFT JOIN`;
  const cJoin =
    needed(periods.min_comparison_referral_count) ||
    periods.min_rate_of_referral_change !== undefined ||
    periods.max_rate_of_referral_change !== undefined
      ? sql`JOIN`
      : sql`LEFT JOIN`;
  return sql`${p ? sql`${pJoin} (${figure(p)}) rfp ON rfp.medical_institution_id = m.id` : sql``}
  ${c ? sql`${cJoin} (${figure(c)}) rfc ON rfc.medical_institution_id = m.id` : sql``}
  CROSS JOIN LATERAL (
    SELECT ${p ? sql`coalesce(rfp.referral_count, 0)` : sql`NULL::int`} AS referral_count,
           ${c ? sql`coalesce(rfc.referral_count, 0)` : sql`NULL::int`} AS comparison_referral_count) rf`;
}

/**
 * The one `referral_institution_rollups` row per institution that holds exactly the whole months a
 * period touches, when there is one: a whole 年度, or the months from April to a month of the same
 * 年度 (its `fiscal_year_to_month` total). Null for other periods.
 */
function singleRollupRow(period: Period): { span: 'fiscal_year' | 'fiscal_year_to_month'; start: string } | null {
  const fiscalYear = (day: string) => Number(day.slice(0, 4)) - (Number(day.slice(5, 7)) < 4 ? 1 : 0);
  const year = fiscalYear(period.from);
  if (period.from.slice(5, 7) !== '04' || fiscalYear(period.to) !== year || period.to < period.from) return null;
  const lastMonth = `${period.to.slice(0, 7)}-01`;
  return lastMonth.slice(5, 7) === '03'
    ? { span: 'fiscal_year', start: `${year}-04-01` }
    : { span: 'fiscal_year_to_month', start: lastMonth };
}

// `rollupPieces` lives in @renkei/read-models: the worker's alert evaluation reads the same pieces.
export { rollupPieces };

/** Whether ordering by this key needs the referral figures of every matching institution. */
const referralSort = (sortBy: MedicalInstitutionSortKey) =>
  sortBy === 'referral_count' || sortBy === 'comparison_referral_count' || sortBy === 'rate_of_referral_change';

export interface InstitutionRow {
  id: string;
  code: string;
  name: string;
  kana: string;
  running_status: RunningStatus;
  postal_code: string;
  prefecture_code: number | null;
  city: string;
  address: string;
  tel: string;
  administrator_name: string;
  founder: string;
  longitude: number | null;
  latitude: number | null;
  facility_type_id: number | null;
  bed_count: number | null;
  department_ids: number[];
  phase_master_id: string | null;
  phase_name: string | null;
  phase_changed_by: string | null;
  phase_changed_by_name: string | null;
  phase_changed_at: Date | null;
  tags: { id: string; name: string }[];
  last_visit_date: string | null;
  memo_content: string | null;
  special_note_content: string | null;
  referral_count?: number | null;
  comparison_referral_count?: number | null;
}

/** Everything a result row shows, for the given ids of one page (tenant data of this tenant only). */
export const detailColumns = (tenantId: string) => sql`
  m.id, m.code, m.name, m.kana, m.running_status, m.postal_code, m.prefecture_code, m.city, m.address, m.tel,
  m.administrator_name, m.founder, m.longitude, m.latitude, m.facility_type_id, m.bed_count, m.department_ids,
  ph.phase_master_id, pm.name AS phase_name, ph.changed_by AS phase_changed_by, acc.name AS phase_changed_by_name,
  ph.changed_at AS phase_changed_at, to_char(lv.last_visit_date, 'YYYY-MM-DD') AS last_visit_date,
  coalesce((SELECT json_agg(json_build_object('id', tg.id, 'name', tg.name) ORDER BY tg.name, tg.id)
              FROM rm.mi_tags x JOIN rm.tags tg ON tg.tenant_id = x.tenant_id AND tg.id = x.tag_id
             WHERE x.tenant_id = ${tenantId} AND x.medical_institution_id = m.id), '[]'::json) AS tags,
  (SELECT content FROM rm.mi_notes n WHERE n.tenant_id = ${tenantId} AND n.medical_institution_id = m.id AND n.kind = 'memo') AS memo_content,
  (SELECT content FROM rm.mi_notes n WHERE n.tenant_id = ${tenantId} AND n.medical_institution_id = m.id AND n.kind = 'special_note') AS special_note_content`;

export const accountJoin = (tenantId: string) =>
  sql`LEFT JOIN rm.mi_accounts acc ON acc.tenant_id = ${tenantId} AND acc.account_id = ph.changed_by`;

export function toMedicalInstitution(r: InstitutionRow): MedicalInstitution {
  const ft = r.facility_type_id !== null ? facilityTypeById.get(r.facility_type_id) : undefined;
  return {
    id: r.id,
    code: r.code,
    name: r.name,
    kana: r.kana,
    running_status: r.running_status,
    status: runningStatusLabels[r.running_status],
    postal_code: r.postal_code || null,
    prefecture: r.prefecture_code ? String(r.prefecture_code).padStart(2, '0') : null,
    city: r.city || null,
    address: r.address,
    tel: r.tel || null,
    administrator_name: r.administrator_name || null,
    founder_name: r.founder || null,
    longitude: r.longitude,
    latitude: r.latitude,
    facility_type: ft ? { id: String(ft.id), name: ft.name } : null,
    bed_count: r.bed_count,
    departments: r.department_ids
      .map((id) => departmentById.get(id))
      .filter((d) => d !== undefined)
      .map((d) => ({ id: departmentCode(d.id), name: d.name })),
    tags: r.tags,
    phase: r.phase_master_id
      ? {
          medical_institution_id: r.id,
          phase_master_id: r.phase_master_id,
          phase_name: r.phase_name,
          changed_user: r.phase_changed_by ? { id: r.phase_changed_by, name: r.phase_changed_by_name ?? '' } : null,
          changed_at: r.phase_changed_at ? new Date(r.phase_changed_at).toISOString() : null,
        }
      : null,
    referral_count: r.referral_count ?? null,
    comparison_referral_count: r.comparison_referral_count ?? null,
    rate_of_referral_change:
      r.referral_count != null && r.comparison_referral_count
        ? (r.referral_count - r.comparison_referral_count) / r.comparison_referral_count
        : null,
    last_visit_date: r.last_visit_date,
    memo_content: r.memo_content,
    special_note_content: r.special_note_content,
  };
}

/**
 * Runs one search statement with JIT compilation off. Tag groups that Postgres cannot turn into a join
 * (exclude with and/nand) are costed per row, so a plain search is estimated above `jit_above_cost`
 * and spent 15–160 ms compiling (measured on 180,000 institutions) for a statement that then ran in
 * 10–50 ms. `SET LOCAL` needs a transaction; its two extra round trips cost well under a millisecond.
 */
async function withoutJit<R>(db: Kysely<ReadModels>, query: RawBuilder<R>) {
  return db.transaction().execute(async (trx) => {
    await sql`SET LOCAL jit = off`.execute(trx);
    return query.execute(trx);
  });
}

export async function searchMedicalInstitutions(
  db: Kysely<ReadModels>,
  tenantId: string,
  body: MedicalInstitutionSearchConditions &
    Partial<ReferralFigureFilters> & {
      referral_period?: Period | undefined;
      comparison_referral_period?: Period | undefined;
      sort_by: MedicalInstitutionSortKey;
      sort: 'asc' | 'desc';
      page: number;
      per_page: number;
    },
) {
  const filtered = hasReferralFilter(body);
  // Referral figure ranges are part of the WHERE, so the count and the pages see the same rows.
  const where = filtered
    ? sql`${await searchConditions(db, tenantId, body)} AND ${referralFigureCondition(body)}`
    : await searchConditions(db, tenantId, body);
  const figures = filtered ? referralJoin(tenantId, body, 'grouped') : sql``;
  const [counted, page] = await Promise.all([
    withoutJit(
      db,
      sql<{ n: number }>`SELECT count(*)::int AS n FROM ${fromClause(tenantId)} ${figures} WHERE ${where}`,
    ),
    withoutJit(
      db,
      sql<InstitutionRow>`
      WITH page AS (
        SELECT m.id, row_number() OVER () AS rn FROM (
          SELECT m.id FROM ${fromClause(tenantId)} ${filtered || referralSort(body.sort_by) ? referralJoin(tenantId, body, 'grouped') : sql``} WHERE ${where}
           ORDER BY ${orderBy(body.sort_by, body.sort, selectiveKeyword(body.keyword ?? undefined))}
           LIMIT ${body.per_page} OFFSET ${(body.page - 1) * body.per_page}) m)
      SELECT ${detailColumns(tenantId)}, rf.referral_count, rf.comparison_referral_count
        FROM page JOIN ${fromClause(tenantId)} ON m.id = page.id ${referralJoin(tenantId, body)} ${accountJoin(tenantId)}
       ORDER BY page.rn`,
    ),
  ]);
  const total = counted.rows[0]?.n ?? 0;
  return {
    data: page.rows.map(toMedicalInstitution),
    meta: {
      total_count: total,
      page: body.page,
      per_page: body.per_page,
      total_pages: Math.ceil(total / body.per_page),
    },
  };
}

/** Label values of one institution for this tenant, live labels only, in label order. */
export async function labelValuesOf(db: Kysely<ReadModels>, tenantId: string, institutionIds: readonly string[]) {
  const { rows } = await sql<LabelValue & { medical_institution_id: string; date_value: string | null }>`
    SELECT v.medical_institution_id, v.label_id, v.text_value, v.integer_value, to_char(v.date_value, 'YYYY-MM-DD') AS date_value,
           v.time_value, v.selection_id, v.selection_ids, v.own_department_id, v.area_id
      FROM rm.mi_label_values v JOIN rm.medical_institution_labels l ON l.tenant_id = v.tenant_id AND l.id = v.label_id
     WHERE v.tenant_id = ${tenantId} AND v.medical_institution_id = ANY(${sql.val(institutionIds)}::uuid[])
     ORDER BY l.sort_order, l.id`.execute(db);
  const byInstitution = new Map<string, LabelValue[]>();
  for (const { medical_institution_id, ...value } of rows) {
    const list = byInstitution.get(medical_institution_id) ?? [];
    list.push(value);
    byInstitution.set(medical_institution_id, list);
  }
  return byInstitution;
}
