import type { Kysely } from 'kysely';
import type { ChartBody, ChartData } from '@renkei/contracts';
import { bucketsOf } from '@renkei/domain';
import type { ReadModels } from '@renkei/read-models';
import { sumMeasures } from '../charts/analysis.queries.ts';

const series = [
  ['referrals', '紹介'],
  ['admitted', '入院'],
  ['operated', '手術'],
  ['reverse_referrals', '逆紹介'],
] as const;

/**
 * An institution's referrals, referrals admitted and operated, and reverse referrals per bucket of the
 * period (weeks Monday to Sunday; months, quarters, halves, years and 年度 as the analysis counts them),
 * the first and last bucket clipped to the period: counted exactly to the day, from the analysis rollups
 * (and the day rollups for the days at the period's ends no whole segment covers). It counted the whole
 * months a period touched, so this 年度 to today met the whole of last year's month on the CRM page, and
 * the same question had another answer there than on the data analysis page. `visit: first_visit`
 * narrows the referrals series only.
 */
export async function institutionReferralChart(
  db: Kysely<ReadModels>,
  tenantId: string,
  institutionId: string,
  body: ChartBody,
): Promise<ChartData> {
  const buckets = bucketsOf(body.period, body.period_unit);
  const f = { medical_institution_ids: [institutionId], own_department_ids: body.own_department_ids };
  const [referrals, others, reverse] = await Promise.all([
    sumMeasures(
      db,
      tenantId,
      { ...f, visit: body.visit === 'first_visit' ? 'first_visit' : 'all' },
      body.period,
      ['referrals'],
      'bucket',
      body.period_unit,
    ),
    sumMeasures(db, tenantId, f, body.period, ['admitted', 'operated'], 'bucket', body.period_unit),
    sumMeasures(db, tenantId, f, body.period, ['reverse_referrals'], 'bucket', body.period_unit),
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
