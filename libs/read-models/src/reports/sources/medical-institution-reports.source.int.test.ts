import { sql } from 'kysely';
import type { ReadModels } from '../../read-models.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { periodBuckets, type PeriodUnit, ReportDefinitionInput } from '@renkei/contracts';
import { runReport } from '../engine/report-engine.ts';
import {
  createReportFixture,
  figuresOf,
  institutions,
  rawFigures,
  type ReportFixture,
} from '../engine/report-fixture.testing.ts';
import type { ReportSourceRequest } from '../engine/report-source.ts';
import { medicalInstitutionReportsSource as source } from './medical-institution-reports.source.ts';

let fx: ReportFixture;
beforeAll(async () => {
  fx = await createReportFixture();
}, 180_000);
afterAll(async () => {
  await fx?.close();
});

const figureKeys = [
  'referral_count',
  'first_visit_count',
  'hospital_admission_count',
  'operation_count',
  'reverse_referral_count',
  'visit_count',
  'communication_count',
];
const request = (
  tenantId: string,
  period: { from: string; to: string },
  unit: PeriodUnit,
  extra: Partial<ReportSourceRequest> = {},
): ReportSourceRequest => ({
  tenantId,
  buckets: periodBuckets(period, unit),
  comparisonBuckets: [],
  periodUnit: unit,
  ownDepartmentIds: [],
  itemKeys: new Set(['medical_institution_name', 'prefecture', 'tags', ...figureKeys]),
  ...extra,
});

describe('medical institution report source', () => {
  it('answers the tenant’s institutions (referrals, communications, tags) with their master attributes', async () => {
    const rows = await source.load(
      fx.db.typed<ReadModels>(),
      request(fx.tenantA, { from: '2025-04-01', to: '2025-06-30' }, 'month'),
    );
    expect(rows.map((r) => r.id).sort()).toEqual(
      [institutions[0], institutions[1], institutions[2], institutions[3], institutions[4]].sort(),
    );
    const byId = new Map(rows.map((r) => [r.id, r]));
    expect(byId.get(institutions[4]!)!.values).toMatchObject({
      medical_institution_name: 'さくら医院',
      prefecture: '東京都',
      city: '新宿区',
      running_status: '運営中',
      tags: '重点',
    });
    expect(byId.get(institutions[3]!)!.values['prefecture']).toBe('静岡県');
    // Tenant B's only institution is never A's.
    const b = await source.load(
      fx.db.typed<ReadModels>(),
      request(fx.tenantB, { from: '2025-04-01', to: '2025-06-30' }, 'month'),
    );
    expect(b.map((r) => r.id).sort()).toEqual([institutions[0], institutions[5]].sort());
  });

  for (const [unit, period] of [
    ['month', { from: '2025-03-01', to: '2025-07-31' }],
    ['week', { from: '2025-03-01', to: '2025-07-31' }],
    ['quarter', { from: '2025-04-01', to: '2025-09-30' }],
    ['fiscal_year', { from: '2024-04-01', to: '2026-03-31' }],
  ] as const)
    it(`every ${unit} figure equals the one counted from the raw facts`, async () => {
      const req = request(fx.tenantA, period, unit, { comparisonBuckets: periodBuckets(period, unit) });
      const rows = await source.load(fx.db.typed<ReadModels>(), req);
      const ids = new Set(rows.map((r) => r.id));
      const raw = Object.fromEntries(
        Object.entries(await rawFigures(fx.db, fx.tenantA, req.buckets, 'institution')).filter(([id]) => ids.has(id)),
      );
      expect(Object.keys(raw).length).toBeGreaterThan(2);
      expect(figuresOf(rows)).toEqual(raw);
      expect(figuresOf(rows, 'comparisonFigures')).toEqual(raw);
    });

  // Without own departments and first visits, whole months, quarters and 年度 are read from the
  // per-institution rollups (one row per institution and bucket) instead of the per-department months.
  for (const [unit, period] of [
    ['month', { from: '2025-03-01', to: '2025-07-31' }],
    ['quarter', { from: '2025-04-01', to: '2025-09-30' }],
    ['fiscal_year', { from: '2024-04-01', to: '2026-03-31' }],
  ] as const)
    it(`every ${unit} figure read from the per-institution rollups equals the raw facts`, async () => {
      const keys = figureKeys.filter((k) => k !== 'first_visit_count');
      const req = request(fx.tenantA, period, unit, {
        comparisonBuckets: periodBuckets(period, unit),
        itemKeys: new Set(['medical_institution_name', ...keys, 'referring_institution_count']),
      });
      const rows = await source.load(fx.db.typed<ReadModels>(), req);
      const ids = new Set(rows.map((r) => r.id));
      const raw = Object.fromEntries(
        Object.entries(await rawFigures(fx.db, fx.tenantA, req.buckets, 'institution'))
          .filter(([id]) => ids.has(id))
          .map(([id, f]) => {
            const { first_visit_count: _, ...rest } = f;
            // An institution's own referring-institution count is 1 in each bucket it referred in.
            const referring = Object.fromEntries(Object.keys(f['referral_count'] ?? {}).map((b) => [b, 1]));
            return [id, Object.keys(referring).length > 0 ? { ...rest, referring_institution_count: referring } : rest];
          }),
      );
      expect(Object.keys(raw).length).toBeGreaterThan(2);
      expect(figuresOf(rows)).toEqual(raw);
      expect(figuresOf(rows, 'comparisonFigures')).toEqual(raw);
    });

  // Periods not aligned to months or weeks: each bucket is counted to the day (as the area report
  // does), not as the whole months or segments it touches; the comparison period is answered apart.
  for (const [unit, period, comparison] of [
    ['month', { from: '2025-03-12', to: '2025-07-20' }, { from: '2025-04-03', to: '2025-06-17' }],
    ['quarter', { from: '2025-03-12', to: '2025-07-20' }, { from: '2025-03-02', to: '2025-05-30' }],
    ['week', { from: '2025-03-19', to: '2025-05-15' }, { from: '2025-03-26', to: '2025-04-09' }],
  ] as const)
    it(`every clipped ${unit} figure (${period.from} → ${period.to}) equals the raw facts`, async () => {
      const req = request(fx.tenantA, period, unit, { comparisonBuckets: periodBuckets(comparison, unit) });
      if (unit === 'week') expect(req.comparisonBuckets.map((b) => b.key)).toContain('2025-03-31');
      const rows = await source.load(fx.db.typed<ReadModels>(), req);
      const ids = new Set(rows.map((r) => r.id));
      const known = async (buckets: typeof req.buckets) =>
        Object.fromEntries(
          Object.entries(await rawFigures(fx.db, fx.tenantA, buckets, 'institution')).filter(([id]) => ids.has(id)),
        );
      const raw = await known(req.buckets);
      expect(Object.keys(raw).length).toBeGreaterThan(2);
      expect(figuresOf(rows)).toEqual(raw);
      expect(figuresOf(rows, 'comparisonFigures')).toEqual(await known(req.comparisonBuckets));
    });

  it('narrows the referral figures to the own departments', async () => {
    const period = { from: '2025-03-01', to: '2025-07-31' };
    const req = request(fx.tenantA, period, 'month', {
      ownDepartmentIds: [fx.departments[0]!],
      itemKeys: new Set(['referral_count', 'hospital_admission_count']),
    });
    const rows = await source.load(fx.db.typed<ReadModels>(), req);
    const raw = await rawFigures(fx.db, fx.tenantA, req.buckets, 'institution', [fx.departments[0]!]);
    const want = Object.fromEntries(
      Object.entries(raw)
        .filter(([id, f]) => rows.some((r) => r.id === id) && f['referral_count'])
        .map(([id, f]) => [
          id,
          {
            referral_count: f['referral_count']!,
            ...(f['hospital_admission_count'] ? { hospital_admission_count: f['hospital_admission_count'] } : {}),
          },
        ]),
    );
    expect(figuresOf(rows)).toEqual(want);
  });

  it('without a sort lists the institutions in フリガナ order, and keeps it between equals', async () => {
    const kana = [
      'シンジュクチュウオウビョウイン',
      'カブキチョウクリニック',
      'シナガワコドモシンリョウジョ',
      'ミナトナイカ',
      'サクライイン',
    ];
    for (const [i, k] of kana.entries())
      await sql`UPDATE ref.medical_institutions SET kana = ${k} WHERE id = ${institutions[i]!}::uuid`.execute(
        fx.db.kysely,
      );
    const byKana = ['歌舞伎町クリニック', 'さくら医院', '品川こども診療所', '新宿中央病院', 'みなと内科'];
    const run = async (sort_conditions: object[]) =>
      (
        await runReport(
          source,
          fx.db.typed<ReadModels>(),
          fx.tenantA,
          ReportDefinitionInput.parse({
            name: 'r',
            display_items: [{ item_key: 'medical_institution_name' }, { item_key: 'prefecture' }],
            sort_conditions,
            aggregation_settings: { period: { from: '2025-04-01', to: '2026-03-31' }, period_unit: 'month' },
          }),
          { page: 1, perPage: 10 },
        )
      ).rows.map((r) => r['medical_institution_name']);
    expect(await run([])).toEqual(byKana);
    // Sorted by prefecture, descending by name (静岡県 after 東京都 in code points): then in フリガナ order.
    expect(await run([{ item_key: 'prefecture', direction: 'desc' }])).toEqual([
      'みなと内科',
      ...byKana.filter((n) => n !== 'みなと内科'),
    ]);
  });

  it('runs end to end: 12 monthly buckets, a rate and the sort', async () => {
    const definition = ReportDefinitionInput.parse({
      name: 'r',
      display_items: [
        { item_key: 'medical_institution_name' },
        { item_key: 'referral_count' },
        { item_key: 'operation_rate' },
      ],
      sort_conditions: [{ item_key: 'referral_count', direction: 'desc' }],
      aggregation_settings: { period: { from: '2025-04-01', to: '2026-03-31' }, period_unit: 'month' },
    });
    const result = await runReport(source, fx.db.typed<ReadModels>(), fx.tenantA, definition, { page: 1, perPage: 10 });
    expect(result.columns).toHaveLength(1 + 13 + 13);
    expect(result.meta.total_count).toBe(5);
    const totals = result.rows.map((r) => r['referral_count'] as number);
    expect(totals).toEqual([...totals].sort((a, b) => b - a));
    expect(totals[0]).toBeGreaterThan(0);
  });
});
