import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { ChartBody } from '@renkei/contracts';
import {
  bucketsOf,
  previousYearPeriod,
  splitForRollups,
  yearToDate,
  type AnalysisPeriodUnit,
  type Bucket,
  type DateRange,
} from '@renkei/domain';
import type { ReadModels } from '@renkei/read-models';

/** `own_department_id` of rollup rows without an own department (the projection's nil uuid). */
const noDepartment = '00000000-0000-0000-0000-000000000000';

/** The filters of the analysis calls; each call passes those its contract has. */
export interface AnalysisFilters {
  own_department_ids?: string[];
  department_ids?: string[];
  facility_type_ids?: string[];
  /** The institution's prefecture code (01–47) and municipality (an addition to the spec, issue 13). */
  prefectures?: string[];
  cities?: string[];
  medical_institution_ids?: string[];
  tag_ids?: string[];
  visit?: ChartBody['visit'];
}

export type Measure = 'referrals' | 'admitted' | 'operated' | 'reverse_referrals';
const measureColumn: Record<Measure, string> = {
  referrals: 'referral_count',
  admitted: 'admitted_count',
  operated: 'operated_count',
  reverse_referrals: 'reverse_referral_count',
};

/** The period's buckets, the first and last clipped to the period (its days are counted exactly). */
export const analysisBuckets = (period: DateRange, unit: AnalysisPeriodUnit): Bucket[] => bucketsOf(period, unit);

/** The first and last date of the tenant's referral (or reverse referral) data: null when it has none. */
export async function coverage(
  db: Kysely<ReadModels>,
  tenantId: string,
  kind: 'referrals' | 'reverse_referrals',
): Promise<DateRange | null> {
  const { rows } = await (
    kind === 'referrals'
      ? sql<{ from: string | null; to: string | null }>`
        SELECT to_char(min(referral_date), 'YYYY-MM-DD') AS "from", to_char(max(referral_date), 'YYYY-MM-DD') AS "to"
          FROM rm.referrals WHERE tenant_id = ${tenantId}`
      : sql<{ from: string | null; to: string | null }>`
        SELECT to_char(min(reverse_referral_date), 'YYYY-MM-DD') AS "from", to_char(max(reverse_referral_date), 'YYYY-MM-DD') AS "to"
          FROM rm.reverse_referrals WHERE tenant_id = ${tenantId}`
  ).execute(db);
  const r = rows[0];
  return r?.from && r.to ? { from: r.from, to: r.to } : null;
}

/**
 * The comparison a total is measured against: the one asked for, or else the same months of the
 * previous 年度 to date (the period cut at the last date the data covers, so an unfinished year is
 * never compared with a whole one). Returns the current period too, cut the same way.
 */
export function comparisonOf(
  period: DateRange,
  comparison: DateRange | null,
  lastCovered: string | null,
): { current: DateRange; comparison: DateRange } {
  if (comparison) return { current: period, comparison };
  const current = yearToDate(period, lastCovered);
  return { current, comparison: previousYearPeriod(current) };
}

/** The rollup rows a filter keeps, as conditions on the rollups aliased `p`. */
function conditions(
  tenantId: string,
  f: AnalysisFilters,
  reverse: boolean,
  institutionLevel: boolean,
): RawBuilder<unknown> {
  const parts: RawBuilder<unknown>[] = [sql`p.tenant_id = ${tenantId}`];
  if (f.own_department_ids?.length)
    parts.push(sql`p.own_department_id = ANY(${sql.val(f.own_department_ids)}::uuid[])`);
  if (f.medical_institution_ids?.length)
    parts.push(sql`p.medical_institution_id = ANY(${sql.val(f.medical_institution_ids)}::uuid[])`);
  // Reverse referrals have no referral department and no first/return visit: those filters are the referrals'.
  if (!reverse) {
    if (f.department_ids?.length) parts.push(sql`p.referral_department = ANY(${sql.val(f.department_ids)}::text[])`);
    if (f.visit === 'first_visit') parts.push(sql`p.visit = 'first'`);
    if (f.visit === 'return_visit') parts.push(sql`p.visit = 'return'`);
  }
  if (institutionLevel) parts.push(...institutionConditions(tenantId, f, sql`p.medical_institution_id`));
  return sql.join(parts, sql` AND `);
}

/** Filters on the institution itself (facility type and area from the master, the tenant's tags). */
export function institutionConditions(
  tenantId: string,
  f: Pick<AnalysisFilters, 'facility_type_ids' | 'tag_ids' | 'prefectures' | 'cities'>,
  institution: RawBuilder<unknown>,
): RawBuilder<unknown>[] {
  const parts: RawBuilder<unknown>[] = [];
  // One semi-join against the master rows that pass, not a look-up per rollup row.
  const master = masterConditions(f, sql`m`);
  if (master.length > 0)
    parts.push(
      sql`${institution} IN (SELECT m.id FROM ref.medical_institutions m WHERE ${sql.join(master, sql` AND `)})`,
    );
  if (f.tag_ids?.length)
    parts.push(sql`${institution} IN (SELECT mt.medical_institution_id FROM rm.mi_tags mt
                                       WHERE mt.tenant_id = ${tenantId} AND mt.tag_id = ANY(${sql.val(f.tag_ids)}::uuid[]))`);
  return parts;
}

/**
 * The master's facility type, prefecture code and municipality a filter keeps, as conditions on the
 * columns of that name of `on` (the master, or the attribute rollups keyed the same way).
 */
function masterConditions(
  f: Pick<AnalysisFilters, 'facility_type_ids' | 'prefectures' | 'cities'>,
  on: RawBuilder<unknown>,
): RawBuilder<unknown>[] {
  const master: RawBuilder<unknown>[] = [];
  // Compared as integers (only ids written as the master writes them can match), so the planner's
  // statistics see how many institutions pass: compared as text it guessed 0.5 % and probed per row.
  if (f.facility_type_ids?.length)
    master.push(
      sql`${on}.facility_type_id = ANY(${sql.val(f.facility_type_ids.filter((id) => /^-?(0|[1-9]\d{0,8})$/.test(id)).map(Number))}::int[])`,
    );
  // Area as partner management filters it: the master's prefecture code and municipality (NFKC).
  if (f.prefectures?.length)
    master.push(sql`${on}.prefecture_code = ANY(${sql.val(f.prefectures.map(Number))}::smallint[])`);
  if (f.cities?.length)
    master.push(sql`${on}.city = ANY(${sql.val(f.cities.map((c) => c.normalize('NFKC')))}::text[])`);
  return master;
}

export type Grouping = 'bucket' | 'institution' | 'institution_bucket' | 'own_department' | 'none';

/**
 * Sums of measures over the rollups, grouped by the unit's bucket, the institution or the own
 * department (`institution_bucket`: `id|bucket`); keys whose sums are all 0 are left out. Reads the
 * coarsest rollup that has every dimension the call needs: the per-tenant sums when nothing of the
 * institution is asked, the per-institution totals of whole 年度, quarters and months when nothing but
 * the institution is (rankings), the monthly per-institution rows when neither referral department nor
 * visit is and the period is whole months, else the per-institution segments. The days at the period's
 * ends that no whole segment covers (at most six at each end) are summed from the day rollups, so every
 * period is exact to the day without reading a fact (docs/decisions.md, Referral analysis). With `top`, only the keys of the
 * `top` biggest sums and those tied with the last of them (rankings).
 */
export async function sumMeasures(
  db: Kysely<ReadModels>,
  tenantId: string,
  f: AnalysisFilters,
  range: DateRange,
  measures: Measure[],
  group: Grouping,
  unit: AnalysisPeriodUnit = 'month',
  options: { top?: number } = {},
): Promise<Map<string, number[]>> {
  const reverse = measures.includes('reverse_referrals');
  // The referral-only filters do not apply to reverse referrals: mixed, they must not be asked.
  if (reverse && measures.length > 1 && (!!f.department_ids?.length || (f.visit ?? 'all') !== 'all'))
    throw new Error('reverse referrals are summed apart when referral department or visit filters apply');
  if (options.top === undefined) {
    const byAttribute = await attributeSums(db, tenantId, f, range, measures, group, unit, reverse);
    if (byAttribute) return byAttribute;
  }
  const institutionLevel =
    group === 'institution' ||
    group === 'institution_bucket' ||
    !!f.medical_institution_ids?.length ||
    !!f.facility_type_ids?.length ||
    !!f.prefectures?.length ||
    !!f.cities?.length ||
    !!f.tag_ids?.length;
  const referralDimensions = !reverse && (!!f.department_ids?.length || (f.visit ?? 'all') !== 'all');
  // Nothing asked of a referral but its institution: the per-institution totals of whole 年度, quarters
  // and months, the segment rows of whole weeks inside a partial month, the facts of the days left.
  if (institutionLevel && !referralDimensions && !f.own_department_ids?.length && group !== 'own_department') {
    if (options.top !== undefined && group === 'institution') {
      const top = options.top;
      const pruned = await prunedTop(db, tenantId, f, range, measures, top, (ids) =>
        sumMeasures(db, tenantId, { ...f, medical_institution_ids: ids }, range, measures, 'institution', unit),
      );
      if (pruned) return pruned;
    }
    const grains = spansFor(group, unit);
    if (grains.length > 0) {
      // Days outside whole months (whole weeks of a partial month, and the days left) from the
      // institution-day rows: one row per institution and day.
      const days = (days: DateRange) =>
        perInstitution(
          f,
          (
            only,
          ) => sql`SELECT tenant_id, medical_institution_id, ${noDepartment}::uuid AS own_department_id, '' AS referral_department,
                               'unknown' AS visit, day AS segment,
                               referral_count, admitted_count, operated_count, reverse_referral_count
                          FROM rm.referral_institution_daily_rollups
                         WHERE tenant_id = ${tenantId} AND day >= ${days.from}::date AND day <= ${days.to}::date${only}`,
        );
      const pieces = grains[0] === 'fiscal_year' ? splitFromYearStart(range, grains) : splitBySpans(range, grains);
      const parts: RawBuilder<unknown>[] = pieces
        .filter((piece) => piece.span !== 'segment')
        .map((piece) =>
          perInstitution(
            f,
            (
              only,
            ) => sql`SELECT tenant_id, medical_institution_id, ${noDepartment}::uuid AS own_department_id, '' AS referral_department,
                                 'unknown' AS visit, period_start AS segment,
                                 referral_count, admitted_count, operated_count, reverse_referral_count
                            FROM rm.referral_institution_rollups
                           WHERE tenant_id = ${tenantId} AND span = ${piece.span}
                             AND period_start >= ${piece.from}::date AND period_start <= ${piece.to}::date${only}`,
          ),
        );
      // One range per run of adjacent days: a range is an index condition, ranges joined by OR are not.
      const dayRanges: DateRange[] = [];
      for (const r of [
        ...pieces.filter((piece) => piece.span === 'segment'),
        ...daysLeftOf(range, pieces, grains),
      ].sort((a, b) => (a.from < b.from ? -1 : 1))) {
        const last = dayRanges.at(-1);
        if (last && addDays(last.to, 1) === r.from) last.to = r.to;
        else dayRanges.push({ from: r.from, to: r.to });
      }
      parts.push(...dayRanges.map(days));
      return summed(db, tenantId, f, measures, group, unit, parts, [], reverse, true, options.top);
    }
  }
  const byMonth = splitForRollups(range, 'month');
  // Month rows are dated on the 1st: summed by week they would all land in the week holding the 1st.
  const byWeek = unit === 'week' && (group === 'bucket' || group === 'institution_bucket');
  const monthly = institutionLevel && !referralDimensions && !byWeek && byMonth.edges.length === 0;
  const { inner, edges } = monthly ? byMonth : splitForRollups(range, 'segment');
  const rollup = !institutionLevel
    ? sql`SELECT tenant_id, NULL::uuid AS medical_institution_id, own_department_id, referral_department, visit, segment,
                 referral_count, admitted_count, operated_count, reverse_referral_count
            FROM rm.referral_tenant_period_rollups`
    : monthly
      ? sql`SELECT tenant_id, medical_institution_id, own_department_id, '' AS referral_department, 'unknown' AS visit,
                   month AS segment, referral_count, admitted_count, operated_count, reverse_referral_count
              FROM rm.referral_monthly_rollups`
      : sql`SELECT tenant_id, medical_institution_id, own_department_id, referral_department, visit, segment,
                   referral_count, admitted_count, operated_count, reverse_referral_count
              FROM rm.referral_period_rollups`;
  // The days no whole rollup row covers (a partial month or week at the period's ends) come from the
  // facts, shaped like segment rows dated on the day itself, so bucketing and filters apply unchanged.
  const parts: RawBuilder<unknown>[] = [];
  if (inner)
    parts.push(sql`SELECT * FROM (${rollup}) r WHERE r.tenant_id = ${tenantId}
                      AND r.segment >= ${inner.from}::date AND r.segment <= ${inner.to}::date
                      ${institutionLevel ? institutionsOnly(f, sql`r.`) : sql``}`);
  return summed(db, tenantId, f, measures, group, unit, parts, edges, reverse, institutionLevel, options.top);
}

/**
 * A call filtered by the institution's facility type, prefecture or municipality (any of them, together)
 * and by nothing else of the institution, summed by bucket (a month or longer), own department or not
 * at all. Its whole months come from the month rows keyed by those attributes: by facility type alone or
 * prefecture alone from the table keyed by that one (a few hundred rows a 年度), any filter with a
 * municipality or with both from `referral_area_rollups` (keyed by the three together, summed over the
 * keys the filter keeps). The days of a partial month at either end come from the day rows keyed the
 * same way, with own department, referral department and visit as the month rows (v13: before, the
 * area day rows had none of them and an area filter asking one read one probe per institution that
 * passed, docs/decisions.md). Null when the call does not fit, or
 * when the rows were not summed against the master as it is now (a sync since: the tenant's next batch
 * sums them again); the caller then takes the per-institution path for the whole period.
 */
async function attributeSums(
  db: Kysely<ReadModels>,
  tenantId: string,
  f: AnalysisFilters,
  range: DateRange,
  measures: Measure[],
  group: Grouping,
  unit: AnalysisPeriodUnit,
  reverse: boolean,
): Promise<Map<string, number[]> | null> {
  const byFacilityType = !!f.facility_type_ids?.length;
  const byPrefecture = !!f.prefectures?.length;
  const byCity = !!f.cities?.length;
  if (
    !(byFacilityType || byPrefecture || byCity) ||
    f.medical_institution_ids?.length ||
    f.tag_ids?.length ||
    !(group === 'bucket' || group === 'none' || group === 'own_department') ||
    (group === 'bucket' && unit === 'week')
  )
    return null;
  const { inner, edges } = splitForRollups(range, 'month');
  if (!inner) return null;
  const area = byCity || (byFacilityType && byPrefecture);
  const rest: AnalysisFilters = { ...f, facility_type_ids: [], prefectures: [], cities: [] };
  const [key, groupBy] =
    group === 'bucket'
      ? [bucketSql(unit), sql`1`]
      : group === 'own_department'
        ? [sql`p.own_department_id::text`, sql`p.own_department_id`]
        : [sql`''`, sql`1`];
  const sums = measures.map((m) => sql`sum(${sql.ref(`p.${measureColumn[m]}`)})`);
  const columns = (period: string, alias = '') =>
    sql`${sql.raw(`${alias}tenant_id, ${alias}own_department_id, ${alias}referral_department, ${alias}visit, ${alias}${period}`)} AS segment,
        ${sql.raw(['referral_count', 'admitted_count', 'operated_count', 'reverse_referral_count'].map((c) => `${alias}${c}`).join(', '))}`;
  // The same ids as the master join takes (institutionConditions): integers as the master writes them.
  const kept = sql.join(masterConditions(f, sql`a`), sql` AND `);
  // Month and day rows keyed by every dimension a filter or grouping may ask (own department, referral
  // department, visit): a municipality or facility type + prefecture from the area tables, else the one
  // attribute asked from its own, smaller table.
  const [monthTable, dayTable] = area
    ? [sql`rm.referral_area_rollups`, sql`rm.referral_area_daily_rollups`]
    : byFacilityType
      ? [sql`rm.referral_facility_type_rollups`, sql`rm.referral_facility_type_daily_rollups`]
      : [sql`rm.referral_prefecture_rollups`, sql`rm.referral_prefecture_daily_rollups`];
  const parts: RawBuilder<unknown>[] = [
    sql`SELECT ${columns('month', 'a.')} FROM ${monthTable} a
         WHERE basis.ok AND a.tenant_id = ${tenantId} AND a.month >= ${inner.from}::date AND a.month <= ${inner.to}::date
           AND ${kept}`,
    ...edges.map(
      (e) => sql`SELECT ${columns('day', 'a.')} FROM ${dayTable} a
                  WHERE basis.ok AND a.tenant_id = ${tenantId} AND a.day >= ${e.from}::date AND a.day <= ${e.to}::date
                    AND ${kept}`,
    ),
  ];
  // One statement says whether the rows were summed against the master as it is (no sync since) and,
  // if so, sums them.
  const { rows } = await sql<{ ok: boolean; key: string | null; n: number[] | null }>`
    WITH basis AS (
      SELECT coalesce((SELECT b.master_runs = (SELECT count(*)::int FROM ref.sync_runs WHERE kind = 'medical_institutions')
                         FROM rm.referral_attribute_bases b WHERE b.tenant_id = ${tenantId}), false) AS ok)
    SELECT basis.ok, s.key, s.n
      FROM basis
      LEFT JOIN LATERAL (
        SELECT ${key} AS key, ARRAY[${sql.join(sums)}]::int[] AS n
          FROM (${sql.join(parts, sql` UNION ALL `)}) p
         WHERE ${conditions(tenantId, rest, reverse, false)}
         GROUP BY ${groupBy} HAVING ${sql.join(
           sums.map((x) => sql`${x} > 0`),
           sql` OR `,
         )}) s ON true`.execute(db);
  if (!rows[0]?.ok) return null;
  return new Map(rows.filter((r) => r.key !== null).map((r) => [r.key!, r.n!]));
}

/**
 * The institutions asked for, as a condition of each rollup read rather than of their union: the
 * per-institution tables' keys start with the institution, so a ranking's values of its top rows read
 * those rows only instead of the whole period's.
 */
function institutionsOnly(f: AnalysisFilters, alias: RawBuilder<unknown> = sql``): RawBuilder<unknown> {
  return f.medical_institution_ids?.length
    ? sql` AND ${alias}medical_institution_id = ANY(${sql.val(f.medical_institution_ids)}::uuid[])`
    : sql``;
}

/**
 * Institutions up to which the day rows are read by probes: a big referrer has dozens of day rows a
 * month (own department × referral department × visit), fetched from the table page by page, where
 * the covering index of the period's days reads every institution's by index only. For 1,000 top
 * referrers the one pass was the cheaper (50 ms against 165 ms at 5,000,000 referrals).
 */
const dayProbes = 100;

/**
 * A read of per-institution rollups (`read`, given the condition to add) for the institutions asked
 * for, as one index probe per institution (their keys start with the institution) rather than the
 * period's rows of every institution filtered by the list: a ranking's values of its top rows and the
 * exact sums of its candidates read their own rows only. (`OFFSET 0` keeps the planner from flattening
 * the probe into a join that scans the whole period, which it costs as cheaper and is not.)
 */
function perInstitution(
  f: AnalysisFilters,
  read: (only: RawBuilder<unknown>) => RawBuilder<unknown>,
  limit = 5000,
): RawBuilder<unknown> {
  const ids = [...new Set(f.medical_institution_ids ?? [])];
  if (ids.length === 0 || ids.length > limit) return read(institutionsOnly(f));
  return sql`SELECT x.* FROM unnest(${sql.val(ids)}::uuid[]) AS i(id)
               CROSS JOIN LATERAL (${read(sql` AND medical_institution_id = i.id`)} OFFSET 0) x`;
}

/** The sums of `sumMeasures` over rollup rows (`parts`) and the day rows of the days `edges` hold. */
async function summed(
  db: Kysely<ReadModels>,
  tenantId: string,
  f: AnalysisFilters,
  measures: Measure[],
  group: Grouping,
  unit: AnalysisPeriodUnit,
  parts: RawBuilder<unknown>[],
  edges: DateRange[],
  reverse: boolean,
  institutionLevel: boolean,
  top: number | undefined,
): Promise<Map<string, number[]>> {
  // The days no whole segment covers come from the day rollups (per institution, or per tenant when
  // nothing of the institution is asked), shaped like segment rows dated on the day itself.
  const days = (
    only: RawBuilder<unknown>,
  ) => sql`SELECT tenant_id, ${institutionLevel ? sql`medical_institution_id` : sql`NULL::uuid`} AS medical_institution_id,
                          own_department_id, referral_department, visit, day AS segment,
                          referral_count, admitted_count, operated_count, reverse_referral_count
                     FROM ${institutionLevel ? sql`rm.referral_daily_rollups` : sql`rm.referral_tenant_daily_rollups`}
                    WHERE tenant_id = ${tenantId} AND (${sql.join(
                      edges.map((e) => sql`(day >= ${e.from}::date AND day <= ${e.to}::date)`),
                      sql` OR `,
                    )})${only}`;
  if (edges.length > 0) parts.push(institutionLevel ? perInstitution(f, days, dayProbes) : days(institutionsOnly(f)));
  if (parts.length === 0) return new Map();
  const source = sql`(${sql.join(parts, sql` UNION ALL `)})`;
  // Grouped by the uuid, not its text: text sorts and hashes by collation (a third of a ranking's time).
  const [key, groupBy] =
    group === 'bucket'
      ? [bucketSql(unit), sql`1`]
      : group === 'institution'
        ? [sql`p.medical_institution_id::text`, sql`p.medical_institution_id`]
        : group === 'institution_bucket'
          ? [
              sql`p.medical_institution_id::text || '|' || ${bucketSql(unit)}`,
              sql`p.medical_institution_id, ${bucketSql(unit)}`,
            ]
          : group === 'own_department'
            ? [sql`p.own_department_id::text`, sql`p.own_department_id`]
            : [sql`''`, sql`1`];
  const sums = measures.map((m) => sql`sum(${sql.ref(`p.${measureColumn[m]}`)})`);
  // Every part reads only the institutions asked for (a probe per institution, or the list as an index
  // condition): the list again here only filtered every row read against it once more.
  const grouped = sql`
    SELECT ${key} AS key, ARRAY[${sql.join(sums)}]::int[] AS n
      FROM ${source} p
     WHERE ${conditions(tenantId, { ...f, medical_institution_ids: [] }, reverse, institutionLevel)}
     GROUP BY ${groupBy} HAVING ${sql.join(
       sums.map((s) => sql`${s} > 0`),
       sql` OR `,
     )}`;
  // `top`: only the keys whose sums (compared in order, as arrays compare) reach the top-th biggest,
  // ties included, instead of every institution of the tenant.
  const { rows } = await (
    top === undefined
      ? sql<{ key: string; n: number[] }>`${grouped}`
      : sql<{ key: string; n: number[] }>`
          WITH g AS MATERIALIZED (${grouped})
          SELECT key, n FROM g
           WHERE n >= coalesce((SELECT n FROM g ORDER BY n DESC OFFSET ${top - 1} LIMIT 1), '{}'::int[])`
  ).execute(db);
  return new Map(rows.map((r) => [r.key, r.n]));
}

/** Postgres's order of int arrays (element by element, a prefix first). */
const compareScores = (a: number[], b: number[]) => {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return a.length - b.length;
};

/** The keys of `sums` a `top` keeps: any sum above 0, and at least the top-th biggest (ties included). */
function keepTop(sums: Map<string, number[]>, top: number): Map<string, number[]> {
  const positive = [...sums].filter(([, n]) => n.some((x) => x > 0));
  const cut = positive.map(([, n]) => n).sort((a, b) => compareScores(b, a))[top - 1];
  return new Map(cut ? positive.filter(([, n]) => compareScores(n, cut) >= 0) : positive);
}

/**
 * The top institutions of a period without summing the period for every institution (issue 13 §3: a
 * 年度-to-date ranking summed about 140,000 quarter, month and day rows to rank 20,000 institutions).
 * Counts are never negative, so an institution's 年度-to-month total up to the period's last month
 * (`fiscal_year_to_month`, one row per institution read in the order of the figures by the ranking
 * index) is an upper bound U of its sum in the period; for a period from April, its total to the month
 * before is a lower bound L. With a cut C at most the top-th biggest exact sum (the top-th L, or the
 * top-th exact sum of the institutions with the biggest U), an institution whose U's first figure is
 * below C's is below at least `top` institutions: only those at or above it (a few more than `top`)
 * are summed exactly, by the same rollups as the whole path. A period of whole months from April is its
 * rows. Null (sum everything) for a period across two 年度, or when the bounds prune too little: a short
 * period, or fewer institutions than `top`.
 */
async function prunedTop(
  db: Kysely<ReadModels>,
  tenantId: string,
  f: AnalysisFilters,
  range: DateRange,
  measures: Measure[],
  top: number,
  exact: (ids: string[]) => Promise<Map<string, number[]>>,
): Promise<Map<string, number[]> | null> {
  const first = fiscalYearOf(range.from);
  if (first !== fiscalYearOf(range.to)) return null;
  const yearStart = `${first}-04-01`;
  const lastMonth = monthStart(range.to);
  const columns = measures.map((m) => sql.ref(`p.${measureColumn[m]}`));
  const totals = (month: string, condition: RawBuilder<unknown>, limit: number, offset = 0) => sql<{
    key: string;
    n: number[];
  }>`
    SELECT p.medical_institution_id::text AS key, ARRAY[${sql.join(columns)}]::int[] AS n
      FROM rm.referral_institution_rollups p
     WHERE p.tenant_id = ${tenantId} AND p.span = 'fiscal_year_to_month' AND p.period_start = ${month}::date ${condition}
           ${institutionsOnly(f, sql`p.`)}
           ${sql.join(
             institutionConditions(tenantId, f, sql`p.medical_institution_id`).map((c) => sql` AND ${c}`),
             sql``,
           )}
     ORDER BY ${sql.join(columns.map((c) => sql`${c} DESC`))} LIMIT ${limit} OFFSET ${offset}`;
  const atLeast = (cut: number[]) =>
    sql`AND (${sql.join(columns.slice(0, cut.length))}) >= (${sql.join(cut.map((x) => sql`${x}::int`))})`;
  const endsMonth = addDays(range.to, 1).endsWith('-01');
  // Whole months from April: the rows are the exact sums; the top-th's figures and those tied with it.
  if (range.from === yearStart && endsMonth) {
    const head = await totals(lastMonth, sql``, top).execute(db);
    const cut = head.rows.at(-1)?.n;
    const rows =
      cut && head.rows.length === top
        ? (await totals(lastMonth, atLeast(cut), 2 ** 31 - 1).execute(db)).rows
        : head.rows;
    return keepTop(new Map(rows.map((r) => [r.key, r.n])), top);
  }
  const limit = top * 4 + 100;
  const candidatesFrom = async (cut: number[]) => {
    const candidates = await totals(lastMonth, atLeast(cut.slice(0, 1)), limit).execute(db);
    return candidates.rows.length >= limit ? null : candidates.rows.map((r) => r.key);
  };
  // From April into a month: the top-th total to the month before is the cut, and the candidates'
  // exact sums the answer.
  if (range.from === yearStart && lastMonth > yearStart) {
    const before = monthStart(addDays(lastMonth, -1));
    const cut = (await totals(before, sql``, 1, top - 1).execute(db)).rows[0]?.n;
    if (!cut || cut[0]! <= 0) return null;
    const ids = await candidatesFrom(cut);
    return ids ? keepTop(await exact(ids), top) : null;
  }
  const seeds = await totals(lastMonth, sql``, Math.ceil(top * 1.5) + 10).execute(db);
  if (seeds.rows.length < top) return null;
  const summedKeys = new Set(seeds.rows.map((r) => r.key));
  const sums = await exact([...summedKeys]);
  const cut = [...sums.values()].sort((a, b) => compareScores(b, a))[top - 1];
  if (!cut || cut[0]! <= 0) return null;
  const ids = await candidatesFrom(cut);
  if (!ids) return null;
  const missing = ids.filter((key) => !summedKeys.has(key));
  if (missing.length > 0) for (const [key, n] of await exact(missing)) sums.set(key, n);
  return keepTop(sums, top);
}

type CalendarSpan = 'fiscal_year' | 'quarter' | 'month' | 'segment';
type Span = CalendarSpan | 'fiscal_year_to_month';

const fiscalYearOf = (d: string) => Number(d.slice(0, 4)) - (Number(d.slice(5, 7)) < 4 ? 1 : 0);
const monthStart = (d: string) => `${d.slice(0, 7)}-01`;

/**
 * A period that starts a 年度 and ends inside it: its whole months from April as one
 * `fiscal_year_to_month` row per institution (dated on the last whole month), the rest of the period
 * cut as `splitBySpans` cuts it. Other periods as `splitBySpans`.
 */
function splitFromYearStart(range: DateRange, spans: CalendarSpan[]): ({ span: Span } & DateRange)[] {
  const year = fiscalYearOf(range.from);
  if (range.from !== `${year}-04-01` || fiscalYearOf(range.to) !== year) return splitBySpans(range, spans);
  // The last month that ends inside the period.
  const lastWhole = addDays(range.to, 1).endsWith('-01')
    ? monthStart(range.to)
    : monthStart(addDays(monthStart(range.to), -1));
  if (lastWhole < range.from) return splitBySpans(range, spans);
  const rest = { from: monthStart(addDays(lastWhole, 31)), to: range.to };
  return [{ span: 'fiscal_year_to_month', from: lastWhole, to: lastWhole }, ...splitBySpans(rest, spans)];
}

/** The days of `range` that none of `pieces` (cut with `spans`) covers: what the day rows answer. */
function daysLeftOf(range: DateRange, pieces: ({ span: Span } & DateRange)[], spans: CalendarSpan[]): DateRange[] {
  const yearToMonth = pieces.find((piece) => piece.span === 'fiscal_year_to_month');
  if (!yearToMonth) return splitBySpans(range, spans, true);
  return splitBySpans({ from: monthStart(addDays(yearToMonth.from, 31)), to: range.to }, spans, true);
}

/**
 * The rollup spans a grouping can sum without splitting a row across two keys, coarsest first: every
 * span fits in the institution totals; a bucket holds whole months, and a quarter or 年度 when its
 * unit is at least that long (quarters fit calendar years and half years too). Weeks are left to the
 * segment rows of the general path (none here).
 */
function spansFor(group: Grouping, unit: AnalysisPeriodUnit): CalendarSpan[] {
  if (group !== 'bucket' && group !== 'institution_bucket') return ['fiscal_year', 'quarter', 'month', 'segment'];
  switch (unit) {
    case 'week':
      return [];
    case 'month':
      return ['month', 'segment'];
    case 'quarter':
    case 'half_year':
    case 'year':
      return ['quarter', 'month', 'segment'];
    case 'fiscal_year':
      return ['fiscal_year', 'quarter', 'month', 'segment'];
    default: {
      const never: never = unit;
      return never;
    }
  }
}

const addDays = (date: string, days: number) =>
  new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
const spanStarts: Record<CalendarSpan, (date: string) => boolean> = {
  fiscal_year: (d) => d.slice(5) === '04-01',
  quarter: (d) => d.endsWith('-01') && (Number(d.slice(5, 7)) - 1) % 3 === 0,
  month: (d) => d.endsWith('-01'),
  segment: (d) => d.endsWith('-01') || new Date(`${d}T00:00:00Z`).getUTCDay() === 1,
};

/**
 * A period cut into the coarsest whole spans that fit (a 年度 in the middle, quarters and months on
 * either side of it, then segments), each piece with the span of its rows; with `daysLeft`, the days at
 * the ends no segment covers instead (at most six at each end).
 */
export function splitBySpans(range: DateRange, spans: CalendarSpan[]): ({ span: CalendarSpan } & DateRange)[];
export function splitBySpans(range: DateRange, spans: CalendarSpan[], daysLeft: true): DateRange[];
export function splitBySpans(
  range: DateRange,
  spans: CalendarSpan[],
  daysLeft = false,
): (({ span: CalendarSpan } & DateRange) | DateRange)[] {
  const [span, ...finer] = spans;
  if (range.from > range.to) return [];
  if (!span) return daysLeft ? [range] : [];
  const isStart = spanStarts[span];
  let from = range.from;
  while (from <= range.to && !isStart(from)) from = addDays(from, 1);
  let to = range.to;
  while (to >= from && !isStart(addDays(to, 1))) to = addDays(to, -1);
  if (from > to) return daysLeft ? splitBySpans(range, finer, true) : splitBySpans(range, finer);
  const before = { from: range.from, to: addDays(from, -1) };
  const after = { from: addDays(to, 1), to: range.to };
  if (daysLeft) return [...splitBySpans(before, finer, true), ...splitBySpans(after, finer, true)];
  return [...splitBySpans(before, finer), { span, from, to }, ...splitBySpans(after, finer)];
}

/** `sumMeasures` of one measure. */
export async function sumRollups(
  db: Kysely<ReadModels>,
  tenantId: string,
  f: AnalysisFilters,
  range: DateRange,
  measure: Measure,
  group: Grouping,
  unit: AnalysisPeriodUnit = 'month',
): Promise<Map<string, number>> {
  const sums = await sumMeasures(db, tenantId, f, range, [measure], group, unit);
  return new Map([...sums].map(([k, v]) => [k, v[0]!]));
}

/** The bucket key (`bucketKey` of the domain) of a segment, in SQL. */
function bucketSql(unit: AnalysisPeriodUnit): RawBuilder<unknown> {
  const s = sql`p.segment::timestamp`;
  switch (unit) {
    case 'week':
      return sql`to_char(date_trunc('week', ${s}), 'YYYY-MM-DD')`;
    case 'month':
      return sql`to_char(p.segment, 'YYYY-MM-01')`;
    case 'quarter':
      return sql`to_char(date_trunc('quarter', ${s} - interval '3 months') + interval '3 months', 'YYYY-MM-DD')`;
    case 'half_year':
      return sql`to_char(make_date(extract(year FROM ${s} - interval '3 months')::int, CASE WHEN extract(month FROM ${s} - interval '3 months') <= 6 THEN 4 ELSE 10 END, 1), 'YYYY-MM-DD')`;
    case 'year':
      return sql`to_char(p.segment, 'YYYY-01-01')`;
    case 'fiscal_year':
      return sql`to_char(date_trunc('year', ${s} - interval '3 months') + interval '3 months', 'YYYY-MM-DD')`;
    default: {
      const never: never = unit;
      return never;
    }
  }
}

/** A series over buckets: the sum per bucket, null where the data does not cover the bucket. */
export function seriesValues(buckets: Bucket[], sums: Map<string, number>, covered: DateRange | null) {
  return buckets.map((b) =>
    covered === null || b.to < covered.from || b.from > covered.to ? null : (sums.get(b.key) ?? 0),
  );
}

/** Own department names of the tenant; the nil id is the referrals without one. */
export async function ownDepartmentNames(db: Kysely<ReadModels>, tenantId: string): Promise<Map<string, string>> {
  const rows = await db
    .selectFrom('rm.own_departments')
    .select(['id', 'name'])
    .where('tenant_id', '=', tenantId)
    .execute();
  return new Map([[noDepartment, '診療科なし'], ...rows.map((r) => [r.id, r.name] as const)]);
}

/** Institution names from the master, by id. */
export async function institutionNames(db: Kysely<ReadModels>, ids: string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const { rows } = await sql<{ id: string; name: string }>`
    SELECT id, name FROM ref.medical_institutions WHERE id = ANY(${sql.val(ids)}::uuid[])`.execute(db);
  return new Map(rows.map((r) => [r.id, r.name]));
}
