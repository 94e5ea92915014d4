import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { ChartBody } from '@renkei/contracts';
import {
  addDays,
  bucketKey,
  bucketsOf,
  previousYearPeriod,
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

/**
 * The rollups count whole segments (a week's part inside a month), so a period is widened to the
 * whole months it touches, or the whole weeks for the week unit (docs/decisions.md, Referral analysis).
 */
export function widen(period: DateRange, unit: AnalysisPeriodUnit): DateRange {
  if (unit === 'week') return { from: bucketKey(period.from, 'week'), to: addDays(bucketKey(period.to, 'week'), 6) };
  const next = addDays(`${period.to.slice(0, 7)}-28`, 4);
  return { from: `${period.from.slice(0, 7)}-01`, to: addDays(`${next.slice(0, 7)}-01`, -1) };
}

/** The period's buckets after widening. */
export const analysisBuckets = (period: DateRange, unit: AnalysisPeriodUnit): Bucket[] =>
  bucketsOf(widen(period, unit), unit);

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
  range: DateRange,
  reverse: boolean,
  institutionLevel: boolean,
): RawBuilder<unknown> {
  const parts: RawBuilder<unknown>[] = [
    sql`p.tenant_id = ${tenantId}`,
    sql`p.segment >= ${range.from}::date AND p.segment <= ${range.to}::date`,
  ];
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

/** Filters on the institution itself (facility type from the master, the tenant's tags). */
export function institutionConditions(
  tenantId: string,
  f: Pick<AnalysisFilters, 'facility_type_ids' | 'tag_ids'>,
  institution: RawBuilder<unknown>,
): RawBuilder<unknown>[] {
  const parts: RawBuilder<unknown>[] = [];
  if (f.facility_type_ids?.length)
    parts.push(sql`EXISTS (SELECT 1 FROM ref.medical_institutions m WHERE m.id = ${institution}
                            AND m.facility_type_id::text = ANY(${sql.val(f.facility_type_ids)}::text[]))`);
  if (f.tag_ids?.length)
    parts.push(sql`EXISTS (SELECT 1 FROM rm.mi_tags mt WHERE mt.tenant_id = ${tenantId} AND mt.medical_institution_id = ${institution}
                            AND mt.tag_id = ANY(${sql.val(f.tag_ids)}::uuid[]))`);
  return parts;
}

export type Grouping = 'bucket' | 'institution' | 'institution_bucket' | 'own_department' | 'none';

/**
 * Sums of measures over the rollups, grouped by the unit's bucket, the institution or the own
 * department (`institution_bucket`: `id|bucket`); keys whose sums are all 0 are left out. Reads the
 * coarsest rollup that has every dimension the call needs: the per-tenant sums when nothing of the
 * institution is asked, the monthly per-institution rows when neither referral department nor visit
 * is and the period is whole months, else the per-institution segments.
 */
export async function sumMeasures(
  db: Kysely<ReadModels>,
  tenantId: string,
  f: AnalysisFilters,
  range: DateRange,
  measures: Measure[],
  group: Grouping,
  unit: AnalysisPeriodUnit = 'month',
): Promise<Map<string, number[]>> {
  const reverse = measures.includes('reverse_referrals');
  if (reverse && measures.length > 1) throw new Error('reverse referrals are summed on their own (other filters)');
  const institutionLevel =
    group === 'institution' ||
    group === 'institution_bucket' ||
    !!f.medical_institution_ids?.length ||
    !!f.facility_type_ids?.length ||
    !!f.tag_ids?.length;
  const referralDimensions = !reverse && (!!f.department_ids?.length || (f.visit ?? 'all') !== 'all');
  const wholeMonths = range.from.endsWith('-01') && addDays(range.to, 1).endsWith('-01');
  const source = !institutionLevel
    ? sql`rm.referral_tenant_period_rollups`
    : !referralDimensions && wholeMonths
      ? sql`(SELECT tenant_id, medical_institution_id, own_department_id, month AS segment, referral_count,
                    admitted_count, operated_count, reverse_referral_count FROM rm.referral_monthly_rollups)`
      : sql`rm.referral_period_rollups`;
  const key =
    group === 'bucket'
      ? bucketSql(unit)
      : group === 'institution'
        ? sql`p.medical_institution_id::text`
        : group === 'institution_bucket'
          ? sql`p.medical_institution_id::text || '|' || ${bucketSql(unit)}`
          : group === 'own_department'
            ? sql`p.own_department_id::text`
            : sql`''`;
  const sums = measures.map((m) => sql`sum(${sql.ref(`p.${measureColumn[m]}`)})`);
  const { rows } = await sql<{ key: string; n: number[] }>`
    SELECT ${key} AS key, ARRAY[${sql.join(sums)}]::int[] AS n
      FROM ${source} p
     WHERE ${conditions(tenantId, f, range, reverse, institutionLevel)}
     GROUP BY 1 HAVING ${sql.join(
       sums.map((s) => sql`${s} > 0`),
       sql` OR `,
     )}`.execute(db);
  return new Map(rows.map((r) => [r.key, r.n]));
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
