import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  reportColumnCount,
  ReportDefinitionInput,
  staticReportItems,
  validateReport,
  type ReportItemDefinition,
  type ReportKind,
} from '@renkei/contracts';
import type { Kysely } from 'kysely';
import type { ReadModels } from '../../read-models.ts';
import { aggregateReport, ReportValidationError, runReport } from './report-engine.ts';
import type { ReportSource, ReportSourceRequest, ReportSourceRow } from './report-source.ts';

const db = {} as Kysely<ReadModels>;
const labelId = '11111111-1111-4111-8111-111111111111';
const items: ReportItemDefinition[] = [
  ...staticReportItems.medical_institution_reports,
  {
    key: `label:${labelId}`,
    label: '重点先',
    category: 'ラベル',
    value_type: 'string',
    selections: [],
    filterable: true,
    sortable: true,
    aggregation_methods: [],
    periodic: false,
  },
];

function fakeSource(rows: ReportSourceRow[], kind: ReportKind = 'medical_institution_reports') {
  const requests: ReportSourceRequest[] = [];
  const source: ReportSource = {
    kind,
    reads: [],
    items: async () => (kind === 'medical_institution_reports' ? items : [...staticReportItems[kind]]),
    load: async (_db, request) => {
      requests.push(request);
      return rows;
    },
  };
  return { source, requests };
}

const row = (
  id: string,
  values: ReportSourceRow['values'],
  figures: ReportSourceRow['figures'] = {},
  comparisonFigures: ReportSourceRow['comparisonFigures'] = {},
): ReportSourceRow => ({ id, values, figures, comparisonFigures });

const definition = (over: Record<string, unknown>) =>
  ReportDefinitionInput.parse({
    name: 'テスト',
    display_items: [{ item_key: 'medical_institution_name' }],
    aggregation_settings: { period: { from: '2025-04-01', to: '2025-06-30' }, period_unit: 'month' },
    ...over,
  });

const rows = [
  row(
    'a',
    { medical_institution_name: 'さくら病院', prefecture: '東京都' },
    {
      referral_count: { '2025-04-01': 4, '2025-05-01': 0, '2025-06-01': 2 },
      hospital_admission_count: { '2025-04-01': 1, '2025-06-01': 2 },
    },
    { referral_count: { '2024-04-01': 3 } },
  ),
  row('b', { medical_institution_name: 'ヒマワリ医院', prefecture: '大阪府' }, { referral_count: { '2025-05-01': 1 } }),
  row('c', { medical_institution_name: 'つばきクリニック', prefecture: '東京都' }, {}),
];

describe('runReport', () => {
  it('plans one column per bucket, then the aggregate, comparison and change', async () => {
    const { source, requests } = fakeSource(rows);
    const result = await runReport(
      source,
      db,
      't',
      definition({
        display_items: [{ item_key: 'medical_institution_name' }, { item_key: 'referral_count' }],
        aggregation_settings: {
          period: { from: '2025-04-01', to: '2025-06-30' },
          comparison_period: { from: '2024-04-01', to: '2024-06-30' },
        },
      }),
      { page: 1, perPage: 10 },
    );
    expect(result.columns.map((c) => [c.key, c.label])).toEqual([
      ['medical_institution_name', '医療機関名'],
      ['referral_count@2025-04-01', '紹介数 2025年4月'],
      ['referral_count@2025-05-01', '紹介数 2025年5月'],
      ['referral_count@2025-06-01', '紹介数 2025年6月'],
      ['referral_count', '紹介数（合計）'],
      ['referral_count@comparison', '紹介数（比較期間）'],
      ['referral_count@change', '紹介数（増減）'],
    ]);
    expect(result.rows[0]).toEqual({
      id: 'a',
      medical_institution_name: 'さくら病院',
      'referral_count@2025-04-01': 4,
      'referral_count@2025-05-01': 0,
      'referral_count@2025-06-01': 2,
      referral_count: 6,
      'referral_count@comparison': 3,
      'referral_count@change': 3,
    });
    expect(result.meta).toEqual({ total_count: 3, page: 1, per_page: 10, total_pages: 1 });
    expect([...requests[0]!.itemKeys].sort()).toEqual(['medical_institution_name', 'referral_count']);
    expect(requests[0]!.comparisonBuckets.map((b) => b.key)).toEqual(['2024-04-01', '2024-05-01', '2024-06-01']);
  });

  it('a single bucket shows only the aggregate column', async () => {
    const { source } = fakeSource(rows);
    const result = await runReport(
      source,
      db,
      't',
      definition({
        display_items: [{ item_key: 'referral_count', aggregation_method: 'average' }],
        aggregation_settings: { period: { from: '2025-04-01', to: '2025-06-30' }, period_unit: 'quarter' },
      }),
      { page: 1, perPage: 10 },
    );
    expect(result.columns).toEqual([{ key: 'referral_count', label: '紹介数（平均）', value_type: 'number' }]);
  });

  it('average divides by the number of buckets; count counts the buckets with a figure', async () => {
    const { source } = fakeSource(rows);
    const result = await runReport(
      source,
      db,
      't',
      definition({
        display_items: [
          { item_key: 'referral_count', aggregation_method: 'average' },
          { item_key: 'first_visit_count', aggregation_method: 'count' },
        ],
      }),
      { page: 1, perPage: 10 },
    );
    expect(result.rows.map((r) => r['referral_count'])).toEqual([2, 0.3, 0]);
    const counted = await runReport(
      source,
      db,
      't',
      definition({ display_items: [{ item_key: 'referral_count', aggregation_method: 'count' }] }),
      { page: 1, perPage: 10 },
    );
    expect(counted.rows.map((r) => r['referral_count'])).toEqual([2, 1, 0]);
    expect(counted.columns.at(-1)!.label).toBe('紹介数（件数）');
  });

  it('rates are count ÷ referral count per bucket and over the period, null without referrals', async () => {
    const { source, requests } = fakeSource(rows);
    const result = await runReport(
      source,
      db,
      't',
      definition({ display_items: [{ item_key: 'hospital_admission_rate' }] }),
      { page: 1, perPage: 10 },
    );
    expect(result.rows[0]).toMatchObject({
      'hospital_admission_rate@2025-04-01': 0.25,
      'hospital_admission_rate@2025-05-01': null,
      'hospital_admission_rate@2025-06-01': 1,
      hospital_admission_rate: 0.5,
    });
    expect(result.rows[2]!['hospital_admission_rate']).toBeNull();
    expect([...requests[0]!.itemKeys].sort()).toEqual([
      'hospital_admission_count',
      'hospital_admission_rate',
      'referral_count',
    ]);
  });

  it('formulas over aggregates: slash null when the right side is 0', async () => {
    const { source } = fakeSource(rows);
    const result = await runReport(
      source,
      db,
      't',
      definition({
        display_items: [
          {
            item_key: 'formula:x',
            label: '入院/紹介',
            formula: { left: 'hospital_admission_count', operator: 'slash', right: 'referral_count' },
          },
          {
            item_key: 'formula:y',
            label: '紹介-入院',
            formula: { left: 'referral_count', operator: 'minus', right: 'hospital_admission_count' },
          },
        ],
      }),
      { page: 1, perPage: 10 },
    );
    expect(result.rows.map((r) => [r['formula:x'], r['formula:y']])).toEqual([
      [0.5, 3],
      [0, 1],
      [null, 0],
    ]);
  });

  it('filters (contains normalised like partner search), sorts nulls last, then pages', async () => {
    const { source } = fakeSource(rows);
    const hira = await runReport(
      source,
      db,
      't',
      definition({
        filter_conditions: [{ item_key: 'medical_institution_name', operator: 'contains', values: ['ひまわり'] }],
      }),
      { page: 1, perPage: 10 },
    );
    expect(hira.rows.map((r) => r.id)).toEqual(['b']);
    const sorted = await runReport(
      source,
      db,
      't',
      definition({
        display_items: [{ item_key: 'medical_institution_name' }, { item_key: 'hospital_admission_rate' }],
        sort_conditions: [{ item_key: 'hospital_admission_rate', direction: 'asc' }],
        filter_conditions: [{ item_key: 'prefecture', operator: 'in', values: ['東京都', '大阪府'] }],
      }),
      { page: 1, perPage: 2 },
    );
    expect(sorted.rows.map((r) => r.id)).toEqual(['b', 'a']);
    expect(sorted.meta).toEqual({ total_count: 3, page: 1, per_page: 2, total_pages: 2 });
    const gte = await runReport(
      source,
      db,
      't',
      definition({ filter_conditions: [{ item_key: 'referral_count', operator: 'between', values: ['1', '5'] }] }),
      { page: 1, perPage: 10 },
    );
    expect(gte.rows.map((r) => r.id)).toEqual(['b']);
  });

  it('a selection filter matches one of several selections, by value or by label', async () => {
    const tagged = [row('x', { tags: '重点、紹介元' }), row('y', { tags: '紹介元' }), row('z', { tags: null })];
    const tagItems = items.map((i) =>
      i.key === 'tags' ? { ...i, selections: [{ value: 'tag-1', label: '重点' }] } : i,
    );
    const source: ReportSource = { ...fakeSource(tagged).source, items: async () => tagItems };
    const run = async (operator: string, values: string[]) =>
      (
        await runReport(
          source,
          db,
          't',
          definition({
            display_items: [{ item_key: 'tags' }],
            filter_conditions: [{ item_key: 'tags', operator, values }],
          }),
          { page: 1, perPage: 10 },
        )
      ).rows.map((r) => r.id);
    expect(await run('eq', ['tag-1'])).toEqual(['x']);
    expect(await run('in', ['紹介元'])).toEqual(['x', 'y']);
    expect(await run('not_in', ['tag-1'])).toEqual(['y', 'z']);
    expect(await run('is_empty', [])).toEqual(['z']);
  });

  it('a deleted label of a saved definition shows null under （削除されたラベル）', async () => {
    const gone = 'label:22222222-2222-4222-8222-222222222222';
    const { source } = fakeSource(rows);
    const def = definition({ display_items: [{ item_key: gone }] });
    await expect(runReport(source, db, 't', def, { page: 1, perPage: 10 })).rejects.toBeInstanceOf(
      ReportValidationError,
    );
    const result = await runReport(source, db, 't', def, { page: 1, perPage: 10, saved: true });
    expect(result.columns).toEqual([{ key: gone, label: '（削除されたラベル）', value_type: 'string' }]);
    expect(result.rows[0]![gone]).toBeNull();
  });

  it('a saved formula over a deleted label answers null instead of refusing the saved report', async () => {
    const gone = 'label:22222222-2222-4222-8222-222222222222';
    const { source } = fakeSource(rows);
    const def = definition({
      display_items: [
        { item_key: 'medical_institution_name' },
        { item_key: 'formula:x', label: '比', formula: { left: 'referral_count', operator: 'slash', right: gone } },
      ],
    });
    await expect(runReport(source, db, 't', def, { page: 1, perPage: 10 })).rejects.toBeInstanceOf(
      ReportValidationError,
    );
    const result = await runReport(source, db, 't', def, { page: 1, perPage: 10, saved: true });
    expect(result.rows.map((r) => r['formula:x'])).toEqual([null, null, null]);
  });
});

describe('validateReport', () => {
  const errorsOf = (over: Record<string, unknown>) =>
    validateReport('medical_institution_reports', items, definition(over)).map((e) => e.field);

  it('names unknown items, bad methods, formulas, filter values, periods and too many columns', () => {
    expect(errorsOf({ display_items: [{ item_key: 'nope' }] })).toEqual(['display_items.0.item_key']);
    expect(errorsOf({ display_items: [{ item_key: 'city' }, { item_key: 'city' }] })).toEqual([
      'display_items.1.item_key',
    ]);
    expect(errorsOf({ display_items: [{ item_key: 'hospital_admission_rate', aggregation_method: 'sum' }] })).toEqual([
      'display_items.0.aggregation_method',
    ]);
    expect(errorsOf({ display_items: [{ item_key: 'formula:x', label: 'x' }] })).toEqual(['display_items.0.formula']);
    expect(
      errorsOf({
        display_items: [
          { item_key: 'formula:x', formula: { left: 'nope', operator: 'minus', right: 'referral_count' } },
        ],
      }),
    ).toEqual(['display_items.0.formula.left', 'display_items.0.label']);
    expect(errorsOf({ filter_conditions: [{ item_key: 'referral_count', operator: 'gte', values: ['abc'] }] })).toEqual(
      ['filter_conditions.0.values'],
    );
    expect(
      errorsOf({ filter_conditions: [{ item_key: 'last_visit_date', operator: 'between', values: ['2025-01-01'] }] }),
    ).toEqual(['filter_conditions.0.values']);
    expect(errorsOf({ sort_conditions: [{ item_key: 'nope', direction: 'asc' }] })).toEqual([
      'sort_conditions.0.item_key',
    ]);
    expect(errorsOf({ aggregation_settings: { period: { from: '2020-04-01', to: '2025-04-01' } } })).toEqual([
      'aggregation_settings.period',
    ]);
    const tooMany = validateReport(
      'medical_institution_reports',
      items,
      definition({
        display_items: [{ item_key: 'referral_count' }, { item_key: 'first_visit_count' }],
        aggregation_settings: { period: { from: '2021-04-01', to: '2025-03-31' }, period_unit: 'week' },
      }),
    );
    expect(tooMany).toEqual([
      { field: 'display_items', message: '表示列が多すぎます。期間の単位を大きくするか項目を減らしてください' },
    ]);
  });
});

describe('reportColumnCount', () => {
  it('counts the columns the engine answers, for any items, unit, period and comparison', async () => {
    const keys = [
      'medical_institution_name',
      'city',
      'referral_count',
      'hospital_admission_rate',
      'visit_count',
      `label:${labelId}`,
      'formula:x',
    ];
    const unit = fc.constantFrom('week', 'month', 'quarter', 'half_year', 'year', 'fiscal_year');
    const day = fc.date({ min: new Date('2023-01-01'), max: new Date('2025-12-31'), noInvalidDate: true });
    await fc.assert(
      fc.asyncProperty(
        fc.subarray(keys, { minLength: 1 }),
        unit,
        day,
        fc.integer({ min: 0, max: 500 }),
        fc.boolean(),
        async (chosen, period_unit, start, length, comparison) => {
          const from = start.toISOString().slice(0, 10);
          const to = new Date(start.getTime() + length * 86_400_000).toISOString().slice(0, 10);
          const def = definition({
            display_items: chosen.map((item_key) =>
              item_key === 'formula:x'
                ? { item_key, label: 'x', formula: { left: 'referral_count', operator: 'minus', right: 'visit_count' } }
                : { item_key },
            ),
            aggregation_settings: {
              period: { from, to },
              period_unit,
              comparison_period: comparison ? { from, to } : null,
            },
          });
          const { source } = fakeSource([]);
          const result = await runReport(source, db, 't', def, { page: 1, perPage: 10 });
          expect(result.columns).toHaveLength(reportColumnCount(items, def));
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('aggregateReport', () => {
  it('groups by attributes, sorts by count, rates from summed counts, totals over every row', async () => {
    const { source } = fakeSource(rows);
    const result = await aggregateReport(
      source,
      db,
      't',
      definition({ display_items: [{ item_key: 'referral_count' }, { item_key: 'hospital_admission_rate' }] }),
      ['prefecture'],
    );
    expect(result.columns.map((c) => c.key)).toEqual([
      'prefecture',
      'row_count',
      'referral_count',
      'hospital_admission_rate',
    ]);
    expect(result.rows).toEqual([
      { prefecture: '東京都', row_count: 2, referral_count: 6, hospital_admission_rate: 0.5 },
      { prefecture: '大阪府', row_count: 1, referral_count: 1, hospital_admission_rate: 0 },
    ]);
    expect(result.totals).toEqual({
      prefecture: null,
      row_count: 3,
      referral_count: 7,
      hospital_admission_rate: 0.4286,
    });
  });

  it('an average over a group is the group’s total ÷ buckets, not a sum of rounded row averages', async () => {
    // Three rows with 1 referral each over 3 months: each row's average is 0.3 (1/3 rounded), the
    // group's is 3/3 = 1.
    const thirds = ['x', 'y', 'z'].map((id) =>
      row(id, { prefecture: '東京都' }, { referral_count: { '2025-05-01': 1 } }),
    );
    const { source } = fakeSource(thirds);
    const result = await aggregateReport(
      source,
      db,
      't',
      definition({ display_items: [{ item_key: 'referral_count', aggregation_method: 'average' }] }),
      ['prefecture'],
    );
    expect(result.rows).toEqual([{ prefecture: '東京都', row_count: 3, referral_count: 1 }]);
    expect(result.totals['referral_count']).toBe(1);
  });

  it('refuses a periodic grouping item', async () => {
    const { source } = fakeSource(rows);
    await expect(aggregateReport(source, db, 't', definition({}), ['referral_count'])).rejects.toBeInstanceOf(
      ReportValidationError,
    );
  });
});

// ---------------------------------------------------------------------------------------------
// Properties

const monthKeys = ['2025-04-01', '2025-05-01', '2025-06-01', '2025-07-01'];
const arbRows = fc
  .array(
    fc.record({
      name: fc.constantFrom('あ', 'い', 'う', null),
      pref: fc.constantFrom('東京都', '大阪府', null),
      counts: fc.array(fc.nat({ max: 20 }), { minLength: 4, maxLength: 4 }),
      admissions: fc.array(fc.nat({ max: 20 }), { minLength: 4, maxLength: 4 }),
    }),
    { maxLength: 30 },
  )
  .map((rs) =>
    rs.map((r, i) =>
      row(
        `r${String(i).padStart(3, '0')}`,
        { medical_institution_name: r.name, prefecture: r.pref },
        {
          referral_count: Object.fromEntries(monthKeys.map((k, j) => [k, r.counts[j]!])),
          hospital_admission_count: Object.fromEntries(
            monthKeys.map((k, j) => [k, Math.min(r.admissions[j]!, r.counts[j]!)]),
          ),
        },
      ),
    ),
  );
const fourMonths = { period: { from: '2025-04-01', to: '2025-07-31' }, period_unit: 'month' };

describe('properties', () => {
  it('the sum column equals the sum of its bucket columns', async () => {
    await fc.assert(
      fc.asyncProperty(arbRows, async (rs) => {
        const { source } = fakeSource(rs);
        const result = await runReport(
          source,
          db,
          't',
          definition({ display_items: [{ item_key: 'referral_count' }], aggregation_settings: fourMonths }),
          { page: 1, perPage: 1000 },
        );
        for (const r of result.rows)
          expect(r['referral_count']).toBe(monthKeys.reduce((a, k) => a + (r[`referral_count@${k}`] as number), 0));
      }),
    );
  });

  it('filtered, sorted and paged pages concatenate to the sorted filtered rows', async () => {
    await fc.assert(
      fc.asyncProperty(arbRows, fc.integer({ min: 1, max: 7 }), fc.nat({ max: 30 }), async (rs, perPage, threshold) => {
        const { source } = fakeSource(rs);
        const def = definition({
          display_items: [{ item_key: 'medical_institution_name' }, { item_key: 'referral_count' }],
          filter_conditions: [{ item_key: 'referral_count', operator: 'gte', values: [String(threshold)] }],
          sort_conditions: [
            { item_key: 'medical_institution_name', direction: 'desc' },
            { item_key: 'referral_count', direction: 'asc' },
          ],
          aggregation_settings: fourMonths,
        });
        const all = await runReport(source, db, 't', def, { page: 1, perPage: 1000 });
        const pages = [];
        for (let p = 1; p <= Math.max(1, Math.ceil(all.meta.total_count / perPage)); p++)
          pages.push(...(await runReport(source, db, 't', def, { page: p, perPage })).rows);
        expect(pages).toEqual(all.rows);
        expect(all.rows.every((r) => (r['referral_count'] as number) >= threshold)).toBe(true);
        expect(all.meta.total_count).toBe(
          rs.filter((r) => monthKeys.reduce((a, k) => a + r.figures['referral_count']![k]!, 0) >= threshold).length,
        );
        for (let i = 1; i < all.rows.length; i++) {
          const [a, b] = [all.rows[i - 1]!, all.rows[i]!];
          const [an, bn] = [a['medical_institution_name'], b['medical_institution_name']];
          if (an === null || an === undefined) expect(bn ?? null).toBeNull();
          else if (bn !== null && bn !== undefined) expect(an >= bn).toBe(true);
        }
      }),
    );
  });

  it('aggregation groups sum to the totals', async () => {
    await fc.assert(
      fc.asyncProperty(arbRows, async (rs) => {
        const { source } = fakeSource(rs);
        const result = await aggregateReport(
          source,
          db,
          't',
          definition({
            display_items: [{ item_key: 'referral_count' }, { item_key: 'hospital_admission_count' }],
            aggregation_settings: fourMonths,
          }),
          ['prefecture', 'medical_institution_name'],
        );
        for (const key of ['row_count', 'referral_count', 'hospital_admission_count'])
          expect(result.rows.reduce((a, r) => a + (r[key] as number), 0)).toBe(result.totals[key]);
        for (let i = 1; i < result.rows.length; i++)
          expect((result.rows[i - 1]!['row_count'] as number) >= (result.rows[i]!['row_count'] as number)).toBe(true);
      }),
    );
  });
});
