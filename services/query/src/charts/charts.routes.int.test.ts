import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { featureKeys, type ChartData } from '@renkei/contracts';
import { bucketsOf, previousYearPeriod, shiftYears, type AnalysisPeriodUnit, type DateRange } from '@renkei/domain';
import {
  departments,
  institutions,
  startAnalysisFixture,
  tag,
  tenantB,
  tenantC,
  type AnalysisFixture,
  type RawReferral,
  type RawReverse,
} from './analysis.testing.ts';

let fx: AnalysisFixture;
beforeAll(async () => {
  fx = await startAnalysisFixture();
});
afterAll(() => fx?.close());

const nil = '00000000-0000-0000-0000-000000000000';
const units: AnalysisPeriodUnit[] = ['week', 'month', 'quarter', 'half_year', 'year', 'fiscal_year'];

interface Filters {
  own_department_ids: string[];
  department_ids: string[];
  facility_type_ids: string[];
  medical_institution_ids: string[];
  tag_ids: string[];
  visit: 'first_visit' | 'return_visit' | 'all';
  prefectures?: string[];
  cities?: string[];
}

const noFilters: Filters = {
  own_department_ids: [],
  department_ids: [],
  facility_type_ids: [],
  medical_institution_ids: [],
  tag_ids: [],
  visit: 'all',
};

const inArea = (f: Filters, x: { prefecture_code: string; city: string }) =>
  (!f.prefectures?.length || f.prefectures.includes(x.prefecture_code)) &&
  (!f.cities?.length || f.cities.includes(x.city));
const keeps = (f: Filters, r: RawReferral) =>
  inArea(f, r) &&
  (f.own_department_ids.length === 0 || f.own_department_ids.includes(r.own_department)) &&
  (f.department_ids.length === 0 || f.department_ids.includes(r.referral_department)) &&
  (f.facility_type_ids.length === 0 || f.facility_type_ids.includes(r.facility_type)) &&
  (f.medical_institution_ids.length === 0 || f.medical_institution_ids.includes(r.institution)) &&
  (f.tag_ids.length === 0 || f.tag_ids.some((t) => r.tags.includes(t))) &&
  (f.visit === 'all' || (f.visit === 'first_visit' ? r.visit === 'first' : r.visit === 'return'));
const keepsReverse = (f: Filters, v: RawReverse) =>
  inArea(f, v) &&
  (f.own_department_ids.length === 0 || f.own_department_ids.includes(v.own_department)) &&
  (f.facility_type_ids.length === 0 || f.facility_type_ids.includes(v.facility_type)) &&
  (f.medical_institution_ids.length === 0 || f.medical_institution_ids.includes(v.institution)) &&
  (f.tag_ids.length === 0 || f.tag_ids.some((t) => v.tags.includes(t)));

type Measure = 'referrals' | 'admitted' | 'operated' | 'reverse_referrals';
function countIn(f: Filters, range: DateRange, measure: Measure): number {
  if (measure === 'reverse_referrals')
    return fx.reverses.filter((v) => v.date >= range.from && v.date <= range.to && keepsReverse(f, v)).length;
  return fx.referrals.filter(
    (r) =>
      r.date >= range.from &&
      r.date <= range.to &&
      keeps(f, r) &&
      (measure === 'referrals' || (measure === 'admitted' ? r.admitted : r.operated)),
  ).length;
}
/** Per bucket from the facts; null for buckets outside the dates the data covers. */
function expectedValues(f: Filters, period: DateRange, unit: AnalysisPeriodUnit, measure: Measure) {
  const covered =
    measure === 'reverse_referrals'
      ? {
          from: fx.reverses.map((v) => v.date).sort()[0]!,
          to: fx.reverses
            .map((v) => v.date)
            .sort()
            .at(-1)!,
        }
      : fx.covered;
  return bucketsOf(period, unit).map((b) =>
    b.to < covered.from || b.from > covered.to ? null : countIn(f, b, measure),
  );
}

const date = fc
  .integer({ min: Date.UTC(2022, 9, 1), max: Date.UTC(2026, 8, 30) })
  .map((ms) => new Date(ms).toISOString().slice(0, 10));
const period = fc.tuple(date, date).map(([a, b]) => (a <= b ? { from: a, to: b } : { from: b, to: a }));
const subset = <T>(xs: T[]) => fc.subarray(xs, { maxLength: 2 });
const filters: fc.Arbitrary<Filters> = fc.record({
  own_department_ids: subset([...departments, nil]),
  department_ids: subset(['内科', '外科', '眼科']),
  facility_type_ids: fc.constant(null).chain(() => subset(facilityTypes())),
  medical_institution_ids: fc.oneof(fc.constant<string[]>([]), subset(institutions)),
  tag_ids: fc.constantFrom<string[]>([], [tag], [randomUUID()]),
  visit: fc.constantFrom('first_visit' as const, 'return_visit' as const, 'all' as const),
  prefectures: fc.constantFrom<string[]>([], [], ['22'], ['13'], ['13', '22'], ['01']),
  cities: fc.constantFrom<string[]>([], [], ['静岡市葵区'], ['新宿区', '浜松市中央区'], ['静岡市駿河区']),
});
const facilityTypes = () => [...new Set(fx.referrals.map((r) => r.facility_type))];

const values = (chart: ChartData, key: string) => chart.series.find((s) => s.key === key)!.values;

describe('referral charts', () => {
  it('has data in every dimension the filters cut (else the properties below would prove little)', () => {
    expect(fx.referrals.length).toBeGreaterThan(400);
    for (const pick of [
      (r: RawReferral) => r.tags.length > 0,
      (r: RawReferral) => r.admitted,
      (r: RawReferral) => r.operated,
      (r: RawReferral) => r.mdc !== '',
      (r: RawReferral) => r.own_department === departments[0],
      (r: RawReferral) => r.referral_department === '外科',
      (r: RawReferral) => r.visit === 'return',
    ])
      expect(fx.referrals.filter(pick).length).toBeGreaterThan(5);
    expect(new Set(fx.referrals.map((r) => r.facility_type)).size).toBe(2);
    expect(fx.reverses.length).toBeGreaterThan(100);
    // The area filters below pick areas that hold referrals (and one, Hokkaido '01', that holds none).
    for (const city of ['静岡市葵区', '新宿区', '浜松市中央区', '静岡市駿河区'])
      expect(fx.referrals.filter((r) => r.city === city).length).toBeGreaterThan(5);
    for (const code of ['13', '22'])
      expect(fx.referrals.filter((r) => r.prefecture_code === code).length).toBeGreaterThan(5);
  });

  it('/charts/referrals answers each bucket as the facts do, for random filters, periods and units', async () => {
    await fc.assert(
      fc.asyncProperty(filters, period, fc.constantFrom(...units), async (f, p, unit) => {
        const res = await fx.post('/api/charts/referrals', { ...f, period: p, period_unit: unit });
        expect(res.statusCode).toBe(200);
        const chart = res.json<ChartData>();
        expect(chart.labels).toEqual(bucketsOf(p, unit).map((b) => b.label));
        for (const m of ['referrals', 'admitted', 'operated'] as const)
          expect(values(chart, m)).toEqual(expectedValues(f, p, unit, m));
      }),
      { numRuns: 30 },
    );
  });

  it('answers an area filter with own department, referral department or visit over partial months as the facts do', async () => {
    // The area rows (city, or facility type + prefecture) keyed by those dimensions, month and day rows
    // both: only while the attribute rows were summed against the master as it is do they answer.
    const { rows } = await sql<{ ok: boolean }>`
      SELECT b.master_runs = (SELECT count(*)::int FROM ref.sync_runs WHERE kind = 'medical_institutions') AS ok
        FROM rm.referral_attribute_bases b
       WHERE b.tenant_id = (SELECT tenant_id FROM rm.referrals WHERE tenant_id <> ${tenantB} LIMIT 1)`.execute(
      fx.db.kysely,
    );
    expect(rows[0]?.ok).toBe(true);
    const area = fc.oneof(
      fc.record({ cities: fc.constantFrom<string[]>(['静岡市葵区'], ['新宿区', '浜松市中央区'], ['静岡市駿河区']) }),
      fc.record({
        facility_type_ids: fc.constant(null).chain(() => fc.subarray(facilityTypes(), { minLength: 1 })),
        prefectures: fc.constantFrom<string[]>(['22'], ['13'], ['13', '22']),
      }),
    );
    const dimensions = fc
      .record({
        own_department_ids: subset([...departments, nil]),
        department_ids: subset(['内科', '外科', '眼科']),
        visit: fc.constantFrom('first_visit' as const, 'return_visit' as const, 'all' as const),
      })
      .filter((d) => d.own_department_ids.length > 0 || d.department_ids.length > 0 || d.visit !== 'all');
    // Neither end on a month's edge: a partial month at both ends, from the day rows.
    const partial = period.filter((p) => !p.from.endsWith('-01') && p.to.slice(0, 7) !== p.from.slice(0, 7));
    await fc.assert(
      fc.asyncProperty(
        area,
        dimensions,
        partial,
        fc.constantFrom<AnalysisPeriodUnit>('month', 'quarter', 'fiscal_year'),
        async (a, d, p, unit) => {
          const f: Filters = { ...noFilters, ...a, ...d };
          const res = await fx.post('/api/charts/referrals', { ...f, period: p, period_unit: unit });
          expect(res.statusCode).toBe(200);
          for (const m of ['referrals', 'admitted', 'operated'] as const)
            expect(values(res.json<ChartData>(), m)).toEqual(expectedValues(f, p, unit, m));
          // Grouped by own department: the year to date against the same days a year before.
          const cut = p.to > fx.covered.to && p.from <= fx.covered.to ? { from: p.from, to: fx.covered.to } : p;
          const byDepartment = (
            await fx.post('/api/charts/referrals/comparison/departments', { ...f, period: p })
          ).json<ChartData>();
          expect(values(byDepartment, 'referrals').reduce<number>((x, v) => x + (v ?? 0), 0)).toBe(
            countIn(f, cut, 'referrals'),
          );
        },
      ),
      { numRuns: 30 },
    );
  });

  it('counts by week over whole months with an area filter as the facts do (found by the property below)', async () => {
    // A period of whole months, summed by week, once took the month rows and put each month into the
    // week holding its 1st.
    const f: Filters = { ...noFilters, cities: ['新宿区', '浜松市中央区'] };
    const p = { from: '2022-10-01', to: '2023-04-17' };
    const c = { from: '2022-10-01', to: '2025-11-30' };
    for (const visit of ['all', 'first_visit'] as const) {
      const body = { ...f, visit, period: p, comparison_period: c, period_unit: 'week' };
      const referrals = (await fx.post('/api/charts/referrals/comparison', body)).json<ChartData>();
      const previous = expectedValues({ ...f, visit }, c, 'week', 'referrals');
      expect(values(referrals, 'comparison_referrals')).toEqual(
        expectedValues(f, p, 'week', 'referrals').map((_, i) => previous[i] ?? null),
      );
      const both = (await fx.post('/api/charts/both_referrals/comparison', body)).json<ChartData>();
      const reverse = expectedValues(f, c, 'week', 'reverse_referrals');
      expect(values(both, 'comparison_reverse_referrals')).toEqual(
        expectedValues(f, p, 'week', 'reverse_referrals').map((_, i) => reverse[i] ?? null),
      );
    }
    const weekly = await fx.post('/api/charts/referrals', { ...f, period: c, period_unit: 'week' });
    expect(values(weekly.json<ChartData>(), 'referrals')).toEqual(expectedValues(f, c, 'week', 'referrals'));
  });

  it('/charts/referrals/comparison and both_referrals compare bucket by bucket with the previous year or the period asked', async () => {
    await fc.assert(
      fc.asyncProperty(
        filters,
        period,
        fc.option(period, { nil: null }),
        fc.constantFrom(...units),
        async (f, p, comparison, unit) => {
          const compared = comparison ?? previousYearPeriod(p);
          const current = expectedValues(f, p, unit, 'referrals');
          const previous = expectedValues(f, compared, unit, 'referrals');
          const res = await fx.post('/api/charts/referrals/comparison', {
            ...f,
            period: p,
            comparison_period: comparison,
            period_unit: unit,
          });
          expect(res.statusCode).toBe(200);
          expect(values(res.json(), 'referrals')).toEqual(current);
          expect(values(res.json(), 'comparison_referrals')).toEqual(current.map((_, i) => previous[i] ?? null));

          const both = await fx.post('/api/charts/both_referrals/comparison', {
            ...f,
            period: p,
            comparison_period: comparison,
            period_unit: unit,
          });
          const reverse = expectedValues(f, compared, unit, 'reverse_referrals');
          expect(values(both.json(), 'reverse_referrals')).toEqual(expectedValues(f, p, unit, 'reverse_referrals'));
          expect(values(both.json(), 'comparison_reverse_referrals')).toEqual(
            current.map((_, i) => reverse[i] ?? null),
          );
        },
      ),
      { numRuns: 25 },
    );
  });

  it('/comparison/departments totals each own department, year to date against the same months a year before', async () => {
    await fc.assert(
      fc.asyncProperty(filters, period, async (f, p) => {
        const res = await fx.post('/api/charts/referrals/comparison/departments', { ...f, period: p });
        expect(res.statusCode).toBe(200);
        // Year to date: the period cut at the last referral date, and the same dates a year before.
        const cut = p.to > fx.covered.to && p.from <= fx.covered.to ? { from: p.from, to: fx.covered.to } : p;
        const names: Record<string, string> = {
          [departments[0]!]: '循環器内科',
          [departments[1]!]: '消化器外科',
          [nil]: '診療科なし',
        };
        const expected = Object.entries(names)
          .map(([id, name]) => ({
            name,
            now: countIn(
              {
                ...f,
                own_department_ids: f.own_department_ids.length ? f.own_department_ids.filter((d) => d === id) : [id],
              },
              cut,
              'referrals',
            ),
            before: countIn(
              {
                ...f,
                own_department_ids: f.own_department_ids.length ? f.own_department_ids.filter((d) => d === id) : [id],
              },
              previousYearPeriod(cut),
              'referrals',
            ),
          }))
          .filter(
            (d) =>
              (f.own_department_ids.length === 0 ||
                f.own_department_ids.includes(Object.keys(names).find((k) => names[k] === d.name)!)) &&
              d.now + d.before > 0,
          );
        const chart = res.json<ChartData>();
        const actual = chart.labels.map((name, i) => ({
          name,
          now: values(chart, 'referrals')[i],
          before: values(chart, 'comparison_referrals')[i],
        }));
        expect(actual.sort((a, b) => a.name.localeCompare(b.name))).toEqual(
          expected.sort((a, b) => a.name.localeCompare(b.name)),
        );
      }),
      { numRuns: 20 },
    );
  });

  it('counts March 31st in the old 年度 and April 1st in the new, and February 29th in its week and month', async () => {
    const f: Filters = {
      own_department_ids: [],
      department_ids: [],
      facility_type_ids: [],
      medical_institution_ids: [],
      tag_ids: [],
      visit: 'all',
    };
    const fy = await fx.post('/api/charts/referrals', {
      period: { from: '2023-04-01', to: '2025-03-31' },
      period_unit: 'fiscal_year',
    });
    expect(fy.json<ChartData>().labels).toEqual(['2023年度', '2024年度']);
    expect(values(fy.json(), 'referrals')).toEqual([
      countIn(f, { from: '2023-04-01', to: '2024-03-31' }, 'referrals'),
      countIn(f, { from: '2024-04-01', to: '2025-03-31' }, 'referrals'),
    ]);
    // The fixture has referrals on both days: neither 年度 is empty at its edge.
    expect(fx.referrals.some((r) => r.date === '2024-03-31') && fx.referrals.some((r) => r.date === '2024-04-01')).toBe(
      true,
    );
    const quarters = await fx.post('/api/charts/referrals', {
      period: { from: '2024-01-15', to: '2024-04-02' },
      period_unit: 'quarter',
    });
    expect(quarters.json<ChartData>().labels).toEqual(['2023年度 第4四半期', '2024年度 第1四半期']);
    const leap = await fx.post('/api/charts/referrals', {
      period: { from: '2024-02-29', to: '2024-02-29' },
      period_unit: 'week',
    });
    expect(leap.json<ChartData>().labels).toEqual(['2024年2月26日週']);
    // A period counts its own days only: the 29th alone, then the whole week across the month end.
    expect(values(leap.json(), 'referrals')).toEqual([
      countIn(f, { from: '2024-02-29', to: '2024-02-29' }, 'referrals'),
    ]);
    const week = await fx.post('/api/charts/referrals', {
      period: { from: '2024-02-26', to: '2024-03-03' },
      period_unit: 'week',
    });
    expect(values(week.json(), 'referrals')).toEqual([
      countIn(f, { from: '2024-02-26', to: '2024-03-03' }, 'referrals'),
    ]);
    // 2025-02 compared with 2024-02 includes the 29th.
    const feb = await fx.post('/api/charts/referrals/comparison', { period: { from: '2025-02-01', to: '2025-02-28' } });
    expect(values(feb.json(), 'comparison_referrals')).toEqual([
      countIn(f, { from: '2024-02-01', to: '2024-02-29' }, 'referrals'),
    ]);
  });

  it('compares a 年度 to date with the same days a year before: the unfinished month is cut to the same day', async () => {
    const f: Filters = {
      own_department_ids: [],
      department_ids: [],
      facility_type_ids: [],
      medical_institution_ids: [],
      tag_ids: [],
      visit: 'all',
    };
    for (const filters of [{}, { medical_institution_ids: institutions.slice(0, 3) }]) {
      const res = await fx.post('/api/charts/referrals/comparison', {
        ...filters,
        period: { from: '2024-04-01', to: '2024-11-20' },
      });
      const g = { ...f, ...filters };
      expect(res.json<ChartData>().labels.at(-1)).toBe('2024年11月');
      expect(values(res.json(), 'referrals').at(-1)).toBe(
        countIn(g, { from: '2024-11-01', to: '2024-11-20' }, 'referrals'),
      );
      expect(values(res.json(), 'comparison_referrals').at(-1)).toBe(
        countIn(g, { from: '2023-11-01', to: '2023-11-20' }, 'referrals'),
      );
      expect(values(res.json(), 'comparison_referrals').reduce((a, b) => a! + b!, 0)).toBe(
        countIn(g, { from: '2023-04-01', to: '2023-11-20' }, 'referrals'),
      );
    }
  });

  it('answers null before the data, 0 where the data covers a bucket but nothing matches, and never counts another tenant', async () => {
    const before = await fx.post('/api/charts/referrals', { period: { from: '2019-04-01', to: '2019-06-30' } });
    expect(values(before.json(), 'referrals')).toEqual([null, null, null]);
    const none = await fx.post('/api/charts/referrals', {
      period: { from: '2024-04-01', to: '2024-06-30' },
      department_ids: ['眼科'],
    });
    expect(values(none.json(), 'referrals')).toEqual([0, 0, 0]);
    const empty = await fx.post('/api/charts/referrals', { period: { from: '2024-04-01', to: '2024-06-30' } }, tenantC);
    expect(values(empty.json(), 'referrals')).toEqual([null, null, null]);
    // Tenant B uploaded referrals of the same institutions: its chart counts only its own.
    const a = await fx.post('/api/charts/referrals', {
      period: { from: '2023-04-01', to: '2026-03-31' },
      period_unit: 'fiscal_year',
    });
    const b = await fx.post(
      '/api/charts/referrals',
      { period: { from: '2023-04-01', to: '2026-03-31' }, period_unit: 'fiscal_year' },
      tenantB,
    );
    const sum = (c: ChartData) => values(c, 'referrals').reduce<number>((n, v) => n + (v ?? 0), 0);
    expect(sum(a.json())).toBe(fx.referrals.length);
    expect(sum(b.json())).toBeGreaterThan(0);
    expect(sum(b.json())).toBeLessThan(fx.referrals.length);
  });

  it('annual comparison: whole 年度 and the same span of each as the last one reaches', async () => {
    const res = await fx.post('/api/charts/referrals/comparison/annual', {
      period: { from: '2025-04-01', to: '2026-03-31' },
    });
    const f: Filters = {
      own_department_ids: [],
      department_ids: [],
      facility_type_ids: [],
      medical_institution_ids: [],
      tag_ids: [],
      visit: 'all',
    };
    const chart = res.json<ChartData>();
    expect(chart.labels).toEqual(['2024年度', '2025年度']);
    expect(values(chart, 'referrals')).toEqual([
      countIn(f, { from: '2024-04-01', to: '2025-03-31' }, 'referrals'),
      countIn(f, { from: '2025-04-01', to: '2026-03-31' }, 'referrals'),
    ]);
    // Year to date to the day: each 年度 up to the same date as the last the data covers.
    const end = fx.covered.to;
    const lastYearEnd = shiftYears(end, -1);
    expect(values(chart, 'year_to_date')).toEqual([
      countIn(f, { from: '2024-04-01', to: lastYearEnd }, 'referrals'),
      countIn(f, { from: '2025-04-01', to: end }, 'referrals'),
    ]);
  });

  it('monthly comparisons label months and reverse referrals ignore the referral-only filters', async () => {
    const f: Filters = {
      own_department_ids: [],
      department_ids: ['内科'],
      facility_type_ids: [],
      medical_institution_ids: [],
      tag_ids: [],
      visit: 'first_visit',
    };
    const p = { from: '2024-04-01', to: '2024-09-30' };
    const res = await fx.post('/api/charts/reverse_referrals/comparison/monthly', { ...f, period: p });
    expect(res.json<ChartData>().labels).toEqual(['4月', '5月', '6月', '7月', '8月', '9月']);
    expect(values(res.json(), 'reverse_referrals')).toEqual(expectedValues(f, p, 'month', 'reverse_referrals'));
    const monthly = await fx.post('/api/charts/referrals/comparison/monthly', { ...f, period: p });
    expect(values(monthly.json(), 'referrals')).toEqual(expectedValues(f, p, 'month', 'referrals'));
    const departmentsChart = await fx.post('/api/charts/reverse_referrals/comparison/departments', { period: p });
    expect(values(departmentsChart.json(), 'reverse_referrals').reduce<number>((n, v) => n + (v ?? 0), 0)).toBe(
      countIn({ ...f, department_ids: [] }, p, 'reverse_referrals'),
    );
  });

  it('an institution by period counts the days of its period exactly, in every unit, as the facts do', async () => {
    // It counted the whole months a period touched: this 年度 to a day met the whole of last year's month.
    await fc.assert(
      fc.asyncProperty(
        period,
        fc.constantFrom<AnalysisPeriodUnit>(...units),
        fc.constantFrom(...institutions.slice(0, 3)),
        fc.constantFrom<'all' | 'first_visit'>('all', 'first_visit'),
        async (p, unit, institution, visit) => {
          const res = await fx.post(`/api/charts/medical_institutions/${institution}/referrals`, {
            period: p,
            period_unit: unit,
            visit,
          });
          expect(res.statusCode).toBe(200);
          const chart = res.json<ChartData>();
          const f: Filters = { ...noFilters, medical_institution_ids: [institution] };
          const buckets = bucketsOf(p, unit);
          expect(chart.labels).toEqual(buckets.map((b) => b.label));
          const measures: Measure[] = ['referrals', 'admitted', 'operated', 'reverse_referrals'];
          for (const m of measures)
            expect(values(chart, m)).toEqual(
              buckets.map((b) => countIn(m === 'referrals' ? { ...f, visit } : f, b, m)),
            );
        },
      ),
      { numRuns: 25 },
    );
  });

  it('an institution by own department; an unknown institution is 404', async () => {
    const p = { from: '2023-04-01', to: '2026-03-31' };
    const res = await fx.post(`/api/charts/medical_institutions/${institutions[1]}/referrals/departments`, {
      period: p,
    });
    expect(res.statusCode).toBe(200);
    const chart = res.json<ChartData>();
    const f = (d: string): Filters => ({
      own_department_ids: [d],
      department_ids: [],
      facility_type_ids: [],
      medical_institution_ids: [institutions[1]!],
      tag_ids: [],
      visit: 'all',
    });
    const ids: Record<string, string> = { 循環器内科: departments[0]!, 消化器外科: departments[1]!, 診療科なし: nil };
    chart.labels.forEach((label, i) => {
      expect(values(chart, 'referrals')[i]).toBe(countIn(f(ids[label]!), p, 'referrals'));
      expect(values(chart, 'admitted')[i]).toBe(countIn(f(ids[label]!), p, 'admitted'));
    });
    expect(
      (await fx.post(`/api/charts/medical_institutions/${randomUUID()}/referrals/departments`, { period: p }))
        .statusCode,
    ).toBe(404);
  });

  it('group charts compare the group institutions; a tenant without a group is refused, an outside institution is a field error', async () => {
    const p = { from: '2024-04-01', to: '2025-03-31' };
    const res = await fx.post('/api/groups/charts/referrals', { period: p, period_unit: 'quarter' });
    expect(res.statusCode).toBe(200);
    const chart = res.json<ChartData>();
    expect(chart.series.map((s) => s.key)).toEqual([institutions[0], institutions[3]]);
    const f = (id: string): Filters => ({
      own_department_ids: [],
      department_ids: [],
      facility_type_ids: [],
      medical_institution_ids: [id],
      tag_ids: [],
      visit: 'all',
    });
    expect(values(chart, institutions[3]!)).toEqual(expectedValues(f(institutions[3]!), p, 'quarter', 'referrals'));
    expect(chart.series[0]!.name).toBe('みなと内科');
    const narrowed = await fx.post('/api/groups/charts/referrals/comparison', {
      period: p,
      group_medical_institution_ids: [institutions[3]],
    });
    expect(narrowed.json<ChartData>().labels).toEqual(['新宿中央病院']);
    expect(values(narrowed.json(), 'referrals')).toEqual([countIn(f(institutions[3]!), p, 'referrals')]);
    expect(values(narrowed.json(), 'comparison_referrals')).toEqual([
      countIn(f(institutions[3]!), previousYearPeriod(p), 'referrals'),
    ]);
    const annual = await fx.post('/api/groups/charts/referrals/comparison/annual', { period: p });
    expect(annual.json<ChartData>().labels).toEqual(['2023年度', '2024年度']);
    const monthly = await fx.post('/api/groups/charts/referrals/comparison/monthly', { period: p });
    expect(monthly.json<ChartData>().series.map((s) => s.key)).toEqual([
      institutions[0],
      `${institutions[0]}:comparison`,
      institutions[3],
      `${institutions[3]}:comparison`,
    ]);

    expect((await fx.post('/api/groups/charts/referrals', { period: p }, tenantB)).statusCode).toBe(403);
    const outside = await fx.post('/api/groups/charts/referrals', {
      period: p,
      group_medical_institution_ids: [institutions[0], institutions[2]],
    });
    expect(outside.statusCode).toBe(422);
    expect(outside.json().errors).toEqual([expect.objectContaining({ field: 'group_medical_institution_ids.1' })]);
  });

  it('refuses a body it cannot read (422 with the fields) and a tenant without the feature (403)', async () => {
    const bad = await fx.post('/api/charts/referrals', {
      period: { from: '2024-05-01', to: '2024-04-01' },
      period_unit: 'day',
      visit: 'x',
    });
    expect(bad.statusCode).toBe(422);
    const fields = bad.json<{ errors: { field: string }[] }>().errors.map((e) => e.field);
    expect(fields).toEqual(expect.arrayContaining(['period.to', 'period_unit', 'visit']));
    expect((await fx.post('/api/charts/referrals', {})).statusCode).toBe(422);
    const without = featureKeys.filter((k) => k !== 'reverse_referrals');
    for (const url of [
      '/api/charts/reverse_referrals/comparison/monthly',
      '/api/charts/reverse_referrals/comparison/departments',
      '/api/charts/both_referrals/comparison',
    ])
      expect(
        (await fx.post(url, { period: { from: '2024-04-01', to: '2024-04-30' } }, undefined, without)).statusCode,
      ).toBe(403);
    const noSearch = featureKeys.filter((k) => k !== 'medical_institutions_search');
    expect(
      (
        await fx.post(
          `/api/charts/medical_institutions/${institutions[0]}/referrals/departments`,
          { period: { from: '2024-04-01', to: '2024-04-30' } },
          undefined,
          noSearch,
        )
      ).statusCode,
    ).toBe(403);
  });
});

describe('referral charts after an institution-master sync', () => {
  it('count an institution under its facility type as the master has it now, before and after the sync', async () => {
    const [first, second] = facilityTypes() as [string, string];
    const moved = institutions.find((id) =>
      fx.referrals.some((r) => r.institution === id && r.facility_type === first),
    )!;
    const p = { from: '2024-04-01', to: '2025-03-31' };
    const total = async () => {
      const res = await fx.post('/api/charts/referrals', {
        period: p,
        period_unit: 'month',
        facility_type_ids: [second],
      });
      expect(res.statusCode).toBe(200);
      return values(res.json<ChartData>(), 'referrals').reduce((a: number, v) => a + (v ?? 0), 0);
    };
    const expected = (typeOf: (r: RawReferral) => string) =>
      fx.referrals.filter((r) => r.date >= p.from && r.date <= p.to && typeOf(r) === second).length;
    expect(await total()).toBe(expected((r) => r.facility_type));
    // A sync as the importer makes one: its run row first, then the institution rows it changes.
    const sync = async (type: string) => {
      await sql`INSERT INTO ref.sync_runs (id, source, full_sync, status) VALUES (${randomUUID()}, 'test', false, 'completed')`.execute(
        fx.db.kysely,
      );
      await sql`UPDATE ref.medical_institutions SET facility_type_id = ${Number(type)} WHERE id = ${moved}`.execute(
        fx.db.kysely,
      );
    };
    // The move changes the answer (else stale rows would pass unnoticed).
    expect(expected((r) => (r.institution === moved ? second : r.facility_type))).toBeGreaterThan(
      expected((r) => r.facility_type),
    );
    await sync(second);
    try {
      expect(await total()).toBe(expected((r) => (r.institution === moved ? second : r.facility_type)));
    } finally {
      await sync(first);
    }
    expect(await total()).toBe(expected((r) => r.facility_type));
  });
  it('count an institution under its city, facility type and prefecture as the master has them, before a sync, after it and after the next upload', async () => {
    // The area filters the rollups keyed by facility type, prefecture and city together answer.
    const clinic = fx.referrals.find((r) => r.institution === institutions[0])!.facility_type;
    const hospital = fx.referrals.find((r) => r.institution === institutions[1])!.facility_type;
    const areaFilters: Filters[] = [
      { ...noFilters, cities: ['新宿区'] },
      { ...noFilters, cities: ['沼津市', '静岡市葵区'] },
      { ...noFilters, cities: ['新宿区'], facility_type_ids: [clinic] },
      { ...noFilters, facility_type_ids: [clinic], prefectures: ['13'] },
      { ...noFilters, facility_type_ids: [hospital], prefectures: ['22'], own_department_ids: [departments[0]!] },
      { ...noFilters, prefectures: ['13'], cities: ['新宿区'], visit: 'first_visit' },
    ];
    // Whole months, and partial months at both ends (the day rows of the institutions that pass).
    const periods = [
      { from: '2024-04-01', to: '2025-03-31' },
      { from: '2023-05-17', to: '2025-11-09' },
    ];
    const check = async () => {
      for (const f of areaFilters)
        for (const p of periods)
          for (const unit of ['month', 'fiscal_year'] as const) {
            const res = await fx.post('/api/charts/referrals', { ...f, period: p, period_unit: unit });
            expect(res.statusCode).toBe(200);
            for (const m of ['referrals', 'admitted', 'operated'] as const)
              expect(values(res.json<ChartData>(), m)).toEqual(expectedValues(f, p, unit, m));
          }
    };
    // Whether the attribute rows were summed against the master as it is (the area rows answer), or not
    // (the per-institution rows joined to the master do).
    const current = async () => {
      const { rows } = await sql<{ ok: boolean }>`
        SELECT b.master_runs = (SELECT count(*)::int FROM ref.sync_runs WHERE kind = 'medical_institutions') AS ok
          FROM rm.referral_attribute_bases b
         WHERE b.tenant_id = (SELECT tenant_id FROM rm.referrals WHERE tenant_id <> ${tenantB} LIMIT 1)`.execute(
        fx.db.kysely,
      );
      return rows[0]?.ok === true;
    };
    const upload = async (seed: number) => {
      await fx.importMore(seed, [40, 20, 20]);
      // Through a call that waits for the projections, before the facts are read again.
      await fx.post('/api/charts/referrals', { period: periods[0] });
      Object.assign(fx, await fx.reread());
    };
    // The earlier test's syncs left the rows stale: an upload sums them again.
    await upload(7);
    await check();
    expect(await current()).toBe(true);
    // 沼津記念病院 (静岡県沼津市, a hospital) moves to 東京都新宿区 as a clinic.
    const moved = institutions[5]!;
    const count = (f: Filters) => countIn(f, periods[1]!, 'referrals');
    const before = areaFilters.map(count);
    await sql`INSERT INTO ref.sync_runs (id, source, full_sync, status) VALUES (${randomUUID()}, 'test', false, 'completed')`.execute(
      fx.db.kysely,
    );
    await sql`UPDATE ref.medical_institutions
                 SET facility_type_id = ${Number(clinic)}, prefecture_code = 13, prefecture = '東京都', city = '新宿区'
               WHERE id = ${moved}`.execute(fx.db.kysely);
    Object.assign(fx, await fx.reread());
    // The move changes the answers (else stale rows would pass unnoticed).
    expect(areaFilters.map(count)).not.toEqual(before);
    // Stale rows are not read: the per-institution rows joined to the master answer.
    expect(await current()).toBe(false);
    await check();
    // The tenant's next batch sums its rows again against the master as it is; they answer again.
    await upload(8);
    expect(await current()).toBe(true);
    await check();
  });
});
