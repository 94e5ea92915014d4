import type { ReadModels } from '../../read-models.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { periodBuckets, type PeriodUnit } from '@renkei/contracts';
import { noOwnDepartment } from '../engine/referral-figures.ts';
import { createReportFixture, figuresOf, rawFigures, type ReportFixture } from '../engine/report-fixture.testing.ts';
import type { ReportSourceRequest } from '../engine/report-source.ts';
import { ownDepartmentReportsSource as source } from './own-department-reports.source.ts';

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
  'referring_institution_count',
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
  itemKeys: new Set(['own_department_name', ...figureKeys]),
  ...extra,
});

describe('own department report source', () => {
  it('answers the tenant’s own departments in order, plus 診療科なし when it has figures', async () => {
    const rows = await source.load(
      fx.db.typed<ReadModels>(),
      request(fx.tenantA, { from: '2025-04-01', to: '2025-06-30' }, 'month'),
    );
    expect(rows.map((r) => [r.id, r.values['own_department_name']])).toEqual([
      [fx.departments[0], '循環器内科'],
      [fx.departments[1], '消化器外科'],
      [noOwnDepartment, '診療科なし'],
    ]);
    // A period without any referral: no 診療科なし row.
    const empty = await source.load(
      fx.db.typed<ReadModels>(),
      request(fx.tenantA, { from: '2020-04-01', to: '2020-06-30' }, 'month'),
    );
    expect(empty.map((r) => r.id)).toEqual(fx.departments);
  });

  // Whole months are summed once from the monthly rollups (a row per institution already); weeks and
  // half years per institution first, then per own department.
  for (const [unit, period] of [
    ['month', { from: '2025-03-01', to: '2025-07-31' }],
    ['week', { from: '2025-03-01', to: '2025-07-31' }],
    ['half_year', { from: '2024-10-01', to: '2025-09-30' }],
  ] as const)
    it(`every ${unit} figure equals the one counted from the raw facts`, async () => {
      const req = request(fx.tenantA, period, unit, { comparisonBuckets: periodBuckets(period, unit) });
      const rows = await source.load(fx.db.typed<ReadModels>(), req);
      const raw = await rawFigures(fx.db, fx.tenantA, req.buckets, 'own_department');
      expect(Object.keys(raw)).toHaveLength(3);
      expect(figuresOf(rows)).toEqual(raw);
      expect(figuresOf(rows, 'comparisonFigures')).toEqual(raw);
    });

  // Periods not aligned to months or weeks: each bucket is counted to the day (as the area report
  // does), `referring_institution_count` too (distinct over the bucket's pieces, not their sum); the
  // comparison period is answered apart.
  for (const [unit, period, comparison] of [
    ['month', { from: '2025-03-12', to: '2025-07-20' }, { from: '2025-04-03', to: '2025-06-17' }],
    ['quarter', { from: '2025-03-12', to: '2025-07-20' }, { from: '2025-03-02', to: '2025-05-30' }],
    ['week', { from: '2025-03-19', to: '2025-05-15' }, { from: '2025-03-26', to: '2025-04-09' }],
  ] as const)
    it(`every clipped ${unit} figure (${period.from} → ${period.to}) equals the raw facts`, async () => {
      const req = request(fx.tenantA, period, unit, { comparisonBuckets: periodBuckets(comparison, unit) });
      if (unit === 'week') expect(req.comparisonBuckets.map((b) => b.key)).toContain('2025-03-31');
      const rows = await source.load(fx.db.typed<ReadModels>(), req);
      const raw = await rawFigures(fx.db, fx.tenantA, req.buckets, 'own_department');
      expect(Object.keys(raw)).toHaveLength(3);
      expect(figuresOf(rows)).toEqual(raw);
      expect(figuresOf(rows, 'comparisonFigures')).toEqual(
        await rawFigures(fx.db, fx.tenantA, req.comparisonBuckets, 'own_department'),
      );
    });

  it('counts a clipped bucket’s referring institutions once however many pieces they refer in', async () => {
    // Two half-year buckets clipped to 3/12–6/20: days, segments and whole months each.
    const req = request(fx.tenantA, { from: '2025-03-12', to: '2025-06-20' }, 'half_year', {
      itemKeys: new Set(['referral_count', 'referring_institution_count']),
    });
    expect(req.buckets).toHaveLength(2);
    const rows = await source.load(fx.db.typed<ReadModels>(), req);
    const raw = await rawFigures(fx.db, fx.tenantA, req.buckets, 'own_department');
    for (const row of rows) {
      const want = raw[row.id]?.['referring_institution_count'] ?? {};
      expect(row.figures['referring_institution_count'] ?? {}).toEqual(want);
      // Tenant A refers from four institutions (one the master lacks): a sum over pieces would pass that.
      expect(Object.values(want).some((n) => n > 1)).toBe(true);
      for (const n of Object.values(want)) expect(n).toBeLessThanOrEqual(4);
    }
  });

  it('narrows to the named own departments', async () => {
    const period = { from: '2025-03-01', to: '2025-07-31' };
    const req = request(fx.tenantA, period, 'month', { ownDepartmentIds: [fx.departments[1]!] });
    const rows = await source.load(fx.db.typed<ReadModels>(), req);
    expect(rows.map((r) => r.id)).toEqual([fx.departments[1]]);
    expect(figuresOf(rows)).toEqual(
      await rawFigures(fx.db, fx.tenantA, req.buckets, 'own_department', [fx.departments[1]!]),
    );
  });
});
