import { sql, type Kysely } from 'kysely';
import type { ChartBody, ChartData } from '@renkei/contracts';
import { bucketsOf } from '@renkei/domain';
import type { ReadModels } from '@renkei/read-models';
import { sumMeasures } from '../charts/analysis.queries.ts';

/** The bucket a month falls in, by unit; fiscal years (年度) start in April. */
function bucketOf(month: string, unit: ChartBody['period_unit']): string {
  const year = Number(month.slice(0, 4));
  const m = Number(month.slice(5, 7));
  const fiscalYear = m >= 4 ? year : year - 1;
  switch (unit) {
    case 'month':
      return `${year}年${m}月`;
    case 'quarter':
      return `${fiscalYear}年度 第${Math.floor(((m + 8) % 12) / 3) + 1}四半期`;
    case 'half_year':
      return `${fiscalYear}年度 ${m >= 4 && m <= 9 ? '上期' : '下期'}`;
    case 'fiscal_year':
      return `${fiscalYear}年度`;
    case 'year':
      return `${year}年`;
    case 'week':
      // Weeks are answered by weeklyChart before any month is bucketed.
      throw new Error('weeks are not bucketed by month');
    default: {
      const never: never = unit;
      return never;
    }
  }
}

const series = [
  ['referrals', '紹介'],
  ['admitted', '入院'],
  ['operated', '手術'],
  ['reverse_referrals', '逆紹介'],
] as const;

/**
 * An institution's referrals, referrals admitted and operated, and reverse referrals per bucket of
 * the period, from the monthly rollups (a period counts the whole months it touches). `visit:
 * first_visit` counts first-visit referrals only.
 */
export async function institutionReferralChart(
  db: Kysely<ReadModels>,
  tenantId: string,
  institutionId: string,
  body: ChartBody,
): Promise<ChartData> {
  if (body.period_unit === 'week') return weeklyChart(db, tenantId, institutionId, body);
  const months: string[] = [];
  for (
    let d = new Date(`${body.period.from.slice(0, 7)}-01T00:00:00Z`);
    d.toISOString().slice(0, 10) <= body.period.to;
  ) {
    months.push(d.toISOString().slice(0, 7));
    d = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1));
  }
  const labels = [...new Set(months.map((m) => bucketOf(m, body.period_unit)))];
  const departments = body.own_department_ids;
  const { rows } = await sql<{
    month: string;
    referrals: number;
    admitted: number;
    operated: number;
    reverse_referrals: number;
  }>`
    SELECT to_char(month, 'YYYY-MM') AS month,
           sum(${body.visit === 'first_visit' ? sql`first_visit_count` : sql`referral_count`})::int AS referrals,
           sum(admitted_count)::int AS admitted, sum(operated_count)::int AS operated,
           sum(reverse_referral_count)::int AS reverse_referrals
      FROM rm.referral_monthly_rollups
     WHERE tenant_id = ${tenantId} AND medical_institution_id = ${institutionId}
       AND month >= ${`${months[0]}-01`}::date AND month <= ${body.period.to}::date
       AND (${departments.length === 0} OR own_department_id = ANY(${sql.val(departments)}::uuid[]))
     GROUP BY month`.execute(db);
  const index = new Map(labels.map((l, i) => [l, i]));
  const values = Object.fromEntries(series.map(([key]) => [key, labels.map(() => 0)])) as Record<
    (typeof series)[number][0],
    number[]
  >;
  for (const r of rows) {
    const i = index.get(bucketOf(r.month, body.period_unit))!;
    for (const [key] of series) values[key][i]! += r[key];
  }
  return { labels, series: series.map(([key, name]) => ({ key, name, values: values[key] })) };
}

/**
 * The week unit: Monday-to-Sunday weeks clipped to the period, from the analysis segment rollups (and
 * the facts for the days at the period's ends no whole segment covers), so each week is exact. As for
 * months, `first_visit` narrows the referrals series only.
 */
async function weeklyChart(
  db: Kysely<ReadModels>,
  tenantId: string,
  institutionId: string,
  body: ChartBody,
): Promise<ChartData> {
  const buckets = bucketsOf(body.period, 'week');
  const f = { medical_institution_ids: [institutionId], own_department_ids: body.own_department_ids };
  const [referrals, others, reverse] = await Promise.all([
    sumMeasures(
      db,
      tenantId,
      { ...f, visit: body.visit === 'first_visit' ? 'first_visit' : 'all' },
      body.period,
      ['referrals'],
      'bucket',
      'week',
    ),
    sumMeasures(db, tenantId, f, body.period, ['admitted', 'operated'], 'bucket', 'week'),
    sumMeasures(db, tenantId, f, body.period, ['reverse_referrals'], 'bucket', 'week'),
  ]);
  const at = (sums: Map<string, number[]>, key: string, i: number) => sums.get(key)?.[i] ?? 0;
  const values: Record<(typeof series)[number][0], number[]> = {
    referrals: buckets.map((b) => at(referrals, b.key, 0)),
    admitted: buckets.map((b) => at(others, b.key, 0)),
    operated: buckets.map((b) => at(others, b.key, 1)),
    reverse_referrals: buckets.map((b) => at(reverse, b.key, 0)),
  };
  return {
    labels: buckets.map((b) => b.label),
    series: series.map(([key, name]) => ({ key, name, values: values[key] })),
  };
}
