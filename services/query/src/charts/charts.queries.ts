import type { Kysely } from 'kysely';
import type { ChartBody, ChartData } from '@renkei/contracts';
import { bucketsOf, fiscalYearOf, shiftYears, yearToDate } from '@renkei/domain';
import type { ReadModels } from '@renkei/read-models';
import {
  analysisBuckets,
  comparisonOf,
  coverage,
  institutionNames,
  ownDepartmentNames,
  seriesValues,
  sumMeasures,
  sumRollups,
  type AnalysisFilters,
  type Measure,
} from './analysis.queries.ts';

// Rows keep the own department they were counted under; an owner may have deleted it since (its id means nothing to a reader).
const deletedDepartment = '（削除された診療科）';

type Series = ChartData['series'][number];
const names: Record<Measure, string> = {
  referrals: '紹介',
  admitted: '入院',
  operated: '手術',
  reverse_referrals: '逆紹介',
};
const coverageKind = (m: Measure) => (m === 'reverse_referrals' ? 'reverse_referrals' : 'referrals');

/** Trend per bucket of the period: one series per measure. */
export async function trendChart(
  db: Kysely<ReadModels>,
  tenantId: string,
  body: ChartBody,
  measures: ('referrals' | 'admitted' | 'operated')[],
): Promise<ChartData> {
  const buckets = analysisBuckets(body.period, body.period_unit);
  const range = body.period;
  const [sums, covered] = await Promise.all([
    sumMeasures(db, tenantId, body, range, measures, 'bucket', body.period_unit),
    coverage(db, tenantId, 'referrals'),
  ]);
  const series = measures.map((m, i): Series => ({
    key: m,
    name: names[m],
    values: seriesValues(buckets, new Map([...sums].map(([k, v]) => [k, v[i]!])), covered),
  }));
  return { labels: buckets.map((b) => b.label), series };
}

/**
 * The period against the comparison period bucket by bucket (the n-th bucket of each), for each
 * measure; without a comparison period, the same months of the previous 年度 (whole: the chart shows
 * last year's line beside this year's, whose uncovered buckets are null). `monthLabels` shows 4月, 5月 ….
 */
export async function comparisonTrendChart(
  db: Kysely<ReadModels>,
  tenantId: string,
  body: ChartBody,
  measures: Measure[],
  monthLabels = false,
): Promise<ChartData> {
  const unit = monthLabels ? 'month' : body.period_unit;
  const comparisonPeriod = body.comparison_period ?? {
    from: shiftYears(body.period.from, -1),
    to: shiftYears(body.period.to, -1),
  };
  const buckets = analysisBuckets(body.period, unit);
  const comparisonBuckets = analysisBuckets(comparisonPeriod, unit);
  const series: Series[] = [];
  for (const m of measures) {
    const [current, previous, covered] = await Promise.all([
      sumRollups(db, tenantId, body, body.period, m, 'bucket', unit),
      sumRollups(db, tenantId, body, comparisonPeriod, m, 'bucket', unit),
      coverage(db, tenantId, coverageKind(m)),
    ]);
    const previousValues = seriesValues(comparisonBuckets, previous, covered);
    series.push({ key: m, name: `${names[m]}（対象期間）`, values: seriesValues(buckets, current, covered) });
    series.push({
      key: `comparison_${m}`,
      name: `${names[m]}（比較期間）`,
      values: buckets.map((_, i) => previousValues[i] ?? null),
    });
  }
  return {
    labels: buckets.map((b) => (monthLabels ? `${Number(b.key.slice(5, 7))}月` : b.label)),
    series,
  };
}

/**
 * Totals of the period and the comparison period per own department (year to date by default), the
 * departments with any count in either, biggest current total first.
 */
export async function departmentComparisonChart(
  db: Kysely<ReadModels>,
  tenantId: string,
  body: ChartBody,
  measure: Measure,
): Promise<ChartData> {
  const covered = await coverage(db, tenantId, coverageKind(measure));
  const { current, comparison } = comparisonOf(body.period, body.comparison_period, covered?.to ?? null);
  const [now, before, departmentNames] = await Promise.all([
    sumRollups(db, tenantId, body, current, measure, 'own_department'),
    sumRollups(db, tenantId, body, comparison, measure, 'own_department'),
    ownDepartmentNames(db, tenantId),
  ]);
  const ids = sortedKeys(now, before, departmentNames);
  return {
    labels: ids.map((id) => departmentNames.get(id) ?? deletedDepartment),
    series: [
      { key: measure, name: `${names[measure]}（対象期間）`, values: ids.map((id) => now.get(id) ?? 0) },
      {
        key: `comparison_${measure}`,
        name: `${names[measure]}（比較期間）`,
        values: ids.map((id) => before.get(id) ?? 0),
      },
    ],
  };
}

/** Keys with a count in either map, biggest first map's value first, then by name. */
function sortedKeys(first: Map<string, number>, second: Map<string, number>, labels: Map<string, string>) {
  return [...new Set([...first.keys(), ...second.keys()])].sort(
    (a, b) =>
      (first.get(b) ?? 0) - (first.get(a) ?? 0) ||
      (second.get(b) ?? 0) - (second.get(a) ?? 0) ||
      (labels.get(a) ?? a).localeCompare(labels.get(b) ?? b, 'ja') ||
      a.localeCompare(b),
  );
}

/** One institution's referrals, admissions and operations per own department over the period. */
export async function institutionDepartmentChart(
  db: Kysely<ReadModels>,
  tenantId: string,
  institutionId: string,
  body: ChartBody,
): Promise<ChartData> {
  const filters: AnalysisFilters = { ...body, medical_institution_ids: [institutionId] };
  const range = body.period;
  const measures: Measure[] = ['referrals', 'admitted', 'operated'];
  const [sums, departmentNames] = await Promise.all([
    Promise.all(measures.map((m) => sumRollups(db, tenantId, filters, range, m, 'own_department'))),
    ownDepartmentNames(db, tenantId),
  ]);
  const ids = sortedKeys(sums[0]!, new Map(), departmentNames);
  return {
    labels: ids.map((id) => departmentNames.get(id) ?? deletedDepartment),
    series: measures.map((m, i) => ({ key: m, name: names[m], values: ids.map((id) => sums[i]!.get(id) ?? 0) })),
  };
}

/**
 * Each 年度 from the comparison period's (the previous 年度 by default) to the period's last: the whole
 * 年度 (`referrals`) and the same span of each 年度 as the last one's data reaches (`year_to_date`), so an
 * unfinished year is compared with the same months of the others.
 */
export async function annualComparisonChart(
  db: Kysely<ReadModels>,
  tenantId: string,
  body: ChartBody,
  institutionIds: string[] | null,
): Promise<ChartData> {
  const covered = await coverage(db, tenantId, 'referrals');
  const first = fiscalYearOf((body.comparison_period ?? body.period).from) - (body.comparison_period ? 0 : 1);
  const firstYear = Math.min(first, fiscalYearOf(body.period.from));
  const lastYear = fiscalYearOf(body.period.to);
  const years = bucketsOf({ from: `${firstYear}-04-01`, to: `${lastYear + 1}-03-31` }, 'fiscal_year');
  const ytdEnd = yearToDate(years.at(-1)!, covered?.to ?? null).to;
  const ytdYears = years.map((y) => ({
    ...y,
    to: shiftYears(ytdEnd, fiscalYearOf(y.from) - lastYear),
  }));
  const whole = { from: years[0]!.from, to: years.at(-1)!.to };
  const filters = (ids: string[] | null): AnalysisFilters => (ids ? { ...body, medical_institution_ids: ids } : body);
  const labels = years.map((y) => y.label);
  if (institutionIds === null) {
    const sums = await sumRollups(db, tenantId, body, whole, 'referrals', 'bucket', 'fiscal_year');
    const ytd = await Promise.all(
      ytdYears.map(async (y) => {
        const s = await sumRollups(db, tenantId, body, y, 'referrals', 'none');
        return covered === null || y.to < covered.from || y.from > covered.to ? null : (s.get('') ?? 0);
      }),
    );
    return {
      labels,
      series: [
        { key: 'referrals', name: '紹介（年度）', values: seriesValues(years, sums, covered) },
        {
          key: 'year_to_date',
          name: `紹介（各年度の${Number(ytdEnd.slice(5, 7))}月${Number(ytdEnd.slice(8, 10))}日まで）`,
          values: ytd,
        },
      ],
    };
  }
  const sums = await sumRollups(
    db,
    tenantId,
    filters(institutionIds),
    whole,
    'referrals',
    'institution_bucket',
    'fiscal_year',
  );
  const series = await groupSeries(db, institutionIds, (id) => seriesValues(years, perInstitution(sums, id), covered));
  return { labels, series };
}

/** One series per institution of a group chart, named after the institution. */
async function groupSeries(
  db: Kysely<ReadModels>,
  institutionIds: string[],
  values: (id: string) => (number | null)[],
): Promise<Series[]> {
  const namesById = await institutionNames(db, institutionIds);
  return institutionIds.map((id) => ({ key: id, name: namesById.get(id) ?? id, values: values(id) }));
}

/** Referrals of each group institution per bucket of the period. */
export async function groupTrendChart(
  db: Kysely<ReadModels>,
  tenantId: string,
  body: ChartBody,
  institutionIds: string[],
): Promise<ChartData> {
  const buckets = analysisBuckets(body.period, body.period_unit);
  const [covered, sums] = await Promise.all([
    coverage(db, tenantId, 'referrals'),
    sumRollups(
      db,
      tenantId,
      { ...body, medical_institution_ids: institutionIds },
      body.period,
      'referrals',
      'institution_bucket',
      body.period_unit,
    ),
  ]);
  const series = await groupSeries(db, institutionIds, (id) =>
    seriesValues(buckets, perInstitution(sums, id), covered),
  );
  return { labels: buckets.map((b) => b.label), series };
}

/** The `bucket → sum` of one institution out of an `institution_bucket` grouping. */
function perInstitution(sums: Map<string, number>, id: string): Map<string, number> {
  const prefix = `${id}|`;
  return new Map([...sums].filter(([k]) => k.startsWith(prefix)).map(([k, v]) => [k.slice(prefix.length), v]));
}

/** Each group institution's referrals in the period against the comparison (year to date by default). */
export async function groupComparisonChart(
  db: Kysely<ReadModels>,
  tenantId: string,
  body: ChartBody,
  institutionIds: string[],
): Promise<ChartData> {
  const covered = await coverage(db, tenantId, 'referrals');
  const { current, comparison } = comparisonOf(body.period, body.comparison_period, covered?.to ?? null);
  const filters = { ...body, medical_institution_ids: institutionIds };
  const [now, before, namesById] = await Promise.all([
    sumRollups(db, tenantId, filters, current, 'referrals', 'institution'),
    sumRollups(db, tenantId, filters, comparison, 'referrals', 'institution'),
    institutionNames(db, institutionIds),
  ]);
  return {
    labels: institutionIds.map((id) => namesById.get(id) ?? id),
    series: [
      { key: 'referrals', name: '紹介（対象期間）', values: institutionIds.map((id) => now.get(id) ?? 0) },
      {
        key: 'comparison_referrals',
        name: '紹介（比較期間）',
        values: institutionIds.map((id) => before.get(id) ?? 0),
      },
    ],
  };
}

/** Each group institution's referrals per month of the period and of the comparison period. */
export async function groupMonthlyComparisonChart(
  db: Kysely<ReadModels>,
  tenantId: string,
  body: ChartBody,
  institutionIds: string[],
): Promise<ChartData> {
  const namesById = await institutionNames(db, institutionIds);
  const series: Series[] = [];
  let labels: string[] = [];
  for (const id of institutionIds) {
    const chart = await comparisonTrendChart(
      db,
      tenantId,
      { ...body, medical_institution_ids: [id] },
      ['referrals'],
      true,
    );
    labels = chart.labels;
    const name = namesById.get(id) ?? id;
    series.push(
      { key: id, name: `${name}（対象期間）`, values: chart.series[0]!.values },
      { key: `${id}:comparison`, name: `${name}（比較期間）`, values: chart.series[1]!.values },
    );
  }
  if (institutionIds.length === 0)
    labels = analysisBuckets(body.period, 'month').map((b) => `${Number(b.key.slice(5, 7))}月`);
  return { labels, series };
}
