import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { featureKeys } from '@renkei/contracts';
import { fiscalYearOf } from '@renkei/domain';
import {
  departments,
  institutionName,
  institutions,
  startAnalysisFixture,
  tag,
  tenantB,
  type AnalysisFixture,
  type RawReferral,
} from '../charts/analysis.testing.ts';

let fx: AnalysisFixture;
beforeAll(async () => {
  fx = await startAnalysisFixture();
});
afterAll(() => fx?.close());

const nil = '00000000-0000-0000-0000-000000000000';
const keys = [
  'medical_institution',
  'own_department',
  'referral_department',
  'month',
  'year',
  'facility_type',
  'prefecture',
  'city',
  'mdc',
  'kcode',
] as const;
type Key = (typeof keys)[number];
const departmentName: Record<string, string> = { [departments[0]!]: '循環器内科', [departments[1]!]: '消化器外科' };

/** A referral's grouping values as the answer shows them (`<key>_id` beside institution and own department). */
function groupingOf(r: RawReferral, key: Key): Record<string, string | null> {
  const orNull = (v: string) => (v === '' ? null : v);
  switch (key) {
    case 'medical_institution':
      return { medical_institution: institutionName.get(r.institution)!, medical_institution_id: r.institution };
    case 'own_department':
      return r.own_department === nil
        ? { own_department: null, own_department_id: null }
        : { own_department: departmentName[r.own_department]!, own_department_id: r.own_department };
    case 'referral_department':
      return { referral_department: orNull(r.referral_department) };
    case 'month':
      return { month: r.date.slice(0, 7) };
    case 'year':
      return { year: `${fiscalYearOf(r.date)}年度` };
    case 'facility_type':
      return { facility_type: r.facility_type };
    case 'prefecture':
      return { prefecture: orNull(r.prefecture) };
    case 'city':
      return { city: orNull(r.city) };
    case 'mdc':
      return { mdc: orNull(r.mdc) };
    case 'kcode':
      return { kcode: orNull(r.kcode) };
  }
}

const date = fc
  .integer({ min: Date.UTC(2022, 9, 1), max: Date.UTC(2026, 8, 30) })
  .map((ms) => new Date(ms).toISOString().slice(0, 10));
const period = fc.tuple(date, date).map(([a, b]) => (a <= b ? { from: a, to: b } : { from: b, to: a }));
// Whole months (1st to last day), across 年度 and leap Februaries: what the per-institution MDC rows answer.
const wholeMonths = fc.tuple(fc.integer({ min: 0, max: 47 }), fc.integer({ min: 0, max: 47 })).map(([a, b]) => {
  const [first, last] = a <= b ? [a, b] : [b, a];
  const start = new Date(Date.UTC(2022, 9 + first, 1)).toISOString().slice(0, 10);
  const end = new Date(Date.UTC(2022, 10 + last, 0)).toISOString().slice(0, 10);
  return { from: start, to: end };
});
const conditions = fc.record({
  period: fc.oneof(period, wholeMonths),
  own_department_ids: fc.subarray([...departments, nil], { maxLength: 2 }),
  medical_institution_ids: fc.oneof(fc.constant<string[]>([]), fc.subarray(institutions, { maxLength: 3 })),
  facility_type_ids: fc
    .constant(null)
    .chain(() => fc.subarray([...new Set(fx.referrals.map((r) => r.facility_type))], { maxLength: 1 })),
  tag_ids: fc.constantFrom<string[]>([], [tag], [randomUUID()]),
  mdc_ids: fc.subarray(['04', '06', '05', '99'], { maxLength: 2 }),
  first_visit: fc.constantFrom('first_visit' as const, 'return_visit' as const, 'all' as const),
  prefectures: fc.constantFrom<string[]>([], [], ['22'], ['13'], ['01']),
  cities: fc.constantFrom<string[]>([], [], ['静岡市葵区', '新宿区'], ['浜松市中央区']),
});
type Conditions = typeof conditions extends fc.Arbitrary<infer T> ? T : never;

const keeps = (c: Conditions, r: RawReferral) =>
  r.date >= c.period.from &&
  r.date <= c.period.to &&
  (c.prefectures.length === 0 || c.prefectures.includes(r.prefecture_code)) &&
  (c.cities.length === 0 || c.cities.includes(r.city)) &&
  (c.own_department_ids.length === 0 || c.own_department_ids.includes(r.own_department)) &&
  (c.medical_institution_ids.length === 0 || c.medical_institution_ids.includes(r.institution)) &&
  (c.facility_type_ids.length === 0 || c.facility_type_ids.includes(r.facility_type)) &&
  (c.tag_ids.length === 0 || c.tag_ids.some((t) => r.tags.includes(t))) &&
  (c.mdc_ids.length === 0 || c.mdc_ids.includes(r.mdc)) &&
  (c.first_visit === 'all' || (c.first_visit === 'first_visit' ? r.visit === 'first' : r.visit === 'return'));

interface Row {
  grouping_keys: Record<string, string | null>;
  referral_count: number;
  hospital_admission_count: number;
  hospital_admission_rate: number | null;
  operation_count: number;
  operation_rate: number | null;
}

function expected(c: Conditions, grouping: Key[]): Row[] {
  const rows = new Map<string, Row>();
  for (const r of fx.referrals.filter((x) => keeps(c, x))) {
    const g = Object.assign({}, ...grouping.map((k) => groupingOf(r, k))) as Record<string, string | null>;
    const id = JSON.stringify(g);
    const row = rows.get(id) ?? {
      grouping_keys: g,
      referral_count: 0,
      hospital_admission_count: 0,
      hospital_admission_rate: null,
      operation_count: 0,
      operation_rate: null,
    };
    row.referral_count++;
    if (r.admitted) row.hospital_admission_count++;
    if (r.operated) row.operation_count++;
    row.hospital_admission_rate = row.hospital_admission_count / row.referral_count;
    row.operation_rate = row.operation_count / row.referral_count;
    rows.set(id, row);
  }
  return [...rows.values()];
}
const byKeys = (a: Row, b: Row) => JSON.stringify(a.grouping_keys).localeCompare(JSON.stringify(b.grouping_keys));

describe('POST /referral_reports/aggregation_results', () => {
  it('groups by up to three keys with admissions, operations and their rates, as the facts do', async () => {
    await fc.assert(
      fc.asyncProperty(
        conditions,
        fc.shuffledSubarray([...keys], { minLength: 1, maxLength: 3 }),
        async (c, grouping) => {
          const res = await fx.post('/api/referral_reports/aggregation_results', {
            filter_conditions: c,
            grouping_conditions: grouping,
          });
          expect(res.statusCode).toBe(200);
          const data = res.json<{ data: Row[] }>().data;
          // Biggest referral count first.
          data.forEach((r, i) => i > 0 && expect(r.referral_count).toBeLessThanOrEqual(data[i - 1]!.referral_count));
          expect([...data].sort(byKeys)).toEqual(expected(c, grouping).sort(byKeys));
        },
      ),
      { numRuns: 40 },
    );
  });

  it('groups by the institution, its facility type or area and MDC over whole months as the facts do', async () => {
    await fc.assert(
      fc.asyncProperty(
        conditions.map((c) => ({ ...c, own_department_ids: [], first_visit: 'all' as const })),
        wholeMonths,
        fc.shuffledSubarray(['medical_institution', 'facility_type', 'prefecture', 'city'] as const, {
          minLength: 1,
          maxLength: 2,
        }),
        fc.boolean(),
        async (c, months, institutionKeys, withMdc) => {
          const grouping: Key[] = withMdc ? [...institutionKeys, 'mdc'] : [...institutionKeys];
          const body = { ...c, period: months };
          const res = await fx.post('/api/referral_reports/aggregation_results', {
            filter_conditions: body,
            grouping_conditions: grouping,
          });
          expect(res.statusCode).toBe(200);
          expect([...res.json<{ data: Row[] }>().data].sort(byKeys)).toEqual(expected(body, grouping).sort(byKeys));
        },
      ),
      { numRuns: 40 },
    );
  });

  it('counts March 31st in the old 年度 and April 1st in the new', async () => {
    const res = await fx.post('/api/referral_reports/aggregation_results', {
      filter_conditions: { period: { from: '2024-03-01', to: '2024-04-30' } },
      grouping_conditions: ['year'],
    });
    const byYear = Object.fromEntries(
      res.json<{ data: Row[] }>().data.map((r) => [r.grouping_keys.year, r.referral_count]),
    );
    const count = (from: string, to: string) => fx.referrals.filter((r) => r.date >= from && r.date <= to).length;
    expect(byYear).toEqual({
      '2023年度': count('2024-03-01', '2024-03-31'),
      '2024年度': count('2024-04-01', '2024-04-30'),
    });
  });

  it('answers an empty list for a period without data and never counts another tenant', async () => {
    const empty = await fx.post('/api/referral_reports/aggregation_results', {
      filter_conditions: { period: { from: '2019-04-01', to: '2019-04-30' } },
      grouping_conditions: ['month'],
    });
    expect(empty.json()).toEqual({ data: [] });
    const all = {
      filter_conditions: { period: { from: '2023-04-01', to: '2026-03-31' } },
      grouping_conditions: ['medical_institution'],
    };
    const sum = (rows: Row[]) => rows.reduce((n, r) => n + r.referral_count, 0);
    expect(sum((await fx.post('/api/referral_reports/aggregation_results', all)).json<{ data: Row[] }>().data)).toBe(
      fx.referrals.length,
    );
    const b = sum(
      (await fx.post('/api/referral_reports/aggregation_results', all, tenantB)).json<{ data: Row[] }>().data,
    );
    expect(b).toBeGreaterThan(0);
    expect(b).toBeLessThan(fx.referrals.length);
  });

  it('refuses four keys, an unknown key or no key (422) and a tenant without reports (403)', async () => {
    const period = { from: '2024-04-01', to: '2024-04-30' };
    for (const [grouping, field] of [
      [['month', 'year', 'mdc', 'kcode'], 'grouping_conditions'],
      [['weather'], 'grouping_conditions.0'],
      [[], 'grouping_conditions'],
    ] as const) {
      const res = await fx.post('/api/referral_reports/aggregation_results', {
        filter_conditions: { period },
        grouping_conditions: grouping,
      });
      expect(res.statusCode).toBe(422);
      expect(res.json<{ errors: { field: string }[] }>().errors.map((e) => e.field)).toContain(field);
    }
    const without = featureKeys.filter((k) => k !== 'report');
    const res = await fx.post(
      '/api/referral_reports/aggregation_results',
      { filter_conditions: { period }, grouping_conditions: ['month'] },
      undefined,
      without,
    );
    expect(res.statusCode).toBe(403);
  });
});
