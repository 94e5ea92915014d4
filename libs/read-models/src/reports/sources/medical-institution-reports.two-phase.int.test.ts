import type { ReadModels } from '../../read-models.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReportDefinitionInput } from '@renkei/contracts';
import { aggregateReport, runReport, ReportValidationError } from '../engine/report-engine.ts';
import { createReportFixture, random, type ReportFixture } from '../engine/report-fixture.testing.ts';
import { medicalInstitutionReportsSource as source } from './medical-institution-reports.source.ts';

let fx: ReportFixture;
beforeAll(async () => {
  fx = await createReportFixture();
}, 180_000);
afterAll(async () => {
  await fx?.close();
});

const periods = [
  ['month', { from: '2025-04-01', to: '2026-03-31' }],
  ['month', { from: '2025-03-12', to: '2025-07-20' }],
  ['week', { from: '2025-03-19', to: '2025-05-15' }],
  ['quarter', { from: '2025-04-01', to: '2025-09-30' }],
  ['quarter', { from: '2025-03-12', to: '2025-07-20' }],
  ['fiscal_year', { from: '2024-04-01', to: '2026-03-31' }],
  ['half_year', { from: '2024-10-01', to: '2025-12-31' }],
  ['year', { from: '2025-02-11', to: '2026-01-20' }],
] as const;
const comparisons = [
  { from: '2024-04-01', to: '2025-03-31' },
  { from: '2025-04-03', to: '2025-06-17' },
];
const methods = ['sum', 'sum', 'count', 'average', null] as const;
const sortKeys = [
  'referral_count',
  'hospital_admission_count',
  'visit_count',
  'communication_count',
  'hospital_admission_rate',
  'operation_rate',
  'medical_institution_name',
  'prefecture',
  'last_visit_date',
  'tags',
  'formula:ratio',
];

function definitionOf(seed: number) {
  const r = random(seed);
  const [unit, period] = r.pick(periods);
  const filters = [
    () => ({ item_key: 'referral_count', operator: 'gte', values: [String(r.int(8))] }),
    () => ({ item_key: 'visit_count', operator: 'lte', values: [String(r.int(4))] }),
    () => ({ item_key: 'hospital_admission_rate', operator: 'gte', values: [String(r.int(10) / 10)] }),
    () => ({ item_key: 'prefecture', operator: 'eq', values: ['東京都'] }),
    () => ({
      item_key: 'medical_institution_name',
      operator: 'contains',
      values: [r.pick(['医', '病院', 'クリニック'])],
    }),
    () => ({ item_key: 'tags', operator: 'is_empty', values: [] }),
    () => ({ item_key: 'formula:ratio', operator: 'gte', values: [String(r.int(5) / 10)] }),
    () => ({ item_key: 'communication_count', operator: 'between', values: ['0', String(r.int(6))] }),
  ];
  return {
    definition: ReportDefinitionInput.parse({
      name: 'p',
      display_items: [
        { item_key: 'medical_institution_name' },
        { item_key: 'prefecture' },
        { item_key: 'tags' },
        { item_key: 'last_visit_date' },
        { item_key: 'referral_count', aggregation_method: r.pick(methods) },
        { item_key: 'hospital_admission_count', aggregation_method: r.pick(methods) },
        { item_key: 'hospital_admission_rate' },
        { item_key: 'operation_rate' },
        { item_key: 'first_visit_count', aggregation_method: 'sum' },
        { item_key: 'visit_count', aggregation_method: r.pick(methods) },
        { item_key: 'communication_count', aggregation_method: r.pick(methods) },
        { item_key: 'reverse_referral_count', aggregation_method: 'sum' },
        {
          item_key: 'formula:ratio',
          label: '比',
          formula: { left: 'hospital_admission_count', operator: 'slash', right: 'referral_count' },
        },
      ],
      filter_conditions: Array.from({ length: r.int(3) }, () => r.pick(filters)()),
      sort_conditions: Array.from({ length: r.int(3) }, () => ({
        item_key: r.pick(sortKeys),
        direction: r.pick(['asc', 'desc']),
      })),
      aggregation_settings: {
        period,
        period_unit: unit,
        comparison_period: r.chance(0.5) ? r.pick(comparisons) : null,
        own_department_ids: r.chance(0.3) ? [fx.departments[r.int(fx.departments.length)]!] : [],
      },
    }),
    page: 1 + r.int(3),
    perPage: 1 + r.int(3),
  };
}

describe('medical institution report in two phases', () => {
  // The same engine over the same source, told the source cannot load by ids: every row, every column.
  const singlePhase = { ...source, loadsByIds: false };

  it('answers every page exactly as the single-phase run, for random filters, sorts, methods and periods', async () => {
    const db = fx.db.typed<ReadModels>();
    let compared = 0;
    let nonEmpty = 0;
    for (let seed = 1; seed <= 120; seed++) {
      const { definition, page, perPage } = definitionOf(seed);
      const run = (s: typeof source) =>
        runReport(s, db, fx.tenantA, definition, { page, perPage }).catch((e: unknown) => {
          if (e instanceof ReportValidationError) return { invalid: e.errors };
          throw e;
        });
      const [two, one] = await Promise.all([run(source), run(singlePhase)]);
      expect(two, `seed ${seed}`).toEqual(one);
      if (!('invalid' in one)) {
        compared++;
        if (one.rows.length > 0) nonEmpty++;
      }
    }
    expect(compared).toBeGreaterThan(80);
    expect(nonEmpty).toBeGreaterThan(40);
  }, 180_000);

  it('aggregates over the period as one bucket exactly as over its buckets', async () => {
    const db = fx.db.typed<ReadModels>();
    const groupings = [['prefecture'], ['facility_type', 'prefecture'], ['tags'], ['running_status', 'city']];
    // Told it answers only the period unit's buckets: the engine asks for every bucket.
    const byBuckets = { ...source, answersAnyBucket: false };
    let compared = 0;
    for (let seed = 1; seed <= 60; seed++) {
      const { definition } = definitionOf(seed);
      const grouping = groupings[seed % groupings.length]!;
      const run = (s: typeof source) =>
        aggregateReport(s, db, fx.tenantA, definition, grouping).catch((e: unknown) => {
          if (e instanceof ReportValidationError) return { invalid: e.errors };
          throw e;
        });
      const [whole, buckets] = await Promise.all([run(source), run(byBuckets)]);
      expect(whole, `seed ${seed}`).toEqual(buckets);
      if (!('invalid' in buckets)) compared++;
    }
    expect(compared).toBeGreaterThan(40);
  }, 180_000);

  it('pages through every row once, in the single-phase order, with the exact total', async () => {
    const db = fx.db.typed<ReadModels>();
    const definition = ReportDefinitionInput.parse({
      name: 'p',
      display_items: [{ item_key: 'medical_institution_name' }, { item_key: 'visit_count' }],
      sort_conditions: [{ item_key: 'visit_count', direction: 'desc' }],
      aggregation_settings: { period: { from: '2025-04-01', to: '2026-03-31' }, period_unit: 'month' },
    });
    const all = await runReport({ ...source, loadsByIds: false }, db, fx.tenantA, definition, {
      page: 1,
      perPage: 100,
    });
    const paged = [];
    for (let page = 1; page <= all.meta.total_count; page++) {
      const one = await runReport(source, db, fx.tenantA, definition, { page, perPage: 1 });
      expect(one.meta).toEqual({ ...all.meta, page, per_page: 1, total_pages: all.meta.total_count });
      paged.push(...one.rows);
    }
    expect(all.meta.total_count).toBeGreaterThan(2);
    expect(paged).toEqual(all.rows);
  });
});
