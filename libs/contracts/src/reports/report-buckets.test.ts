import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { PeriodUnit } from './report.schemas.ts';
import { periodBuckets } from './report-buckets.ts';

const keysAndLabels = (from: string, to: string, unit: PeriodUnit) =>
  periodBuckets({ from, to }, unit).map((b) => [b.key, b.label, b.from, b.to]);

describe('periodBuckets', () => {
  it('months of a 年度, labelled 2025年4月', () => {
    const b = periodBuckets({ from: '2025-04-01', to: '2026-03-31' }, 'month');
    expect(b).toHaveLength(12);
    expect(b[0]).toEqual({ key: '2025-04-01', label: '2025年4月', from: '2025-04-01', to: '2025-04-30' });
    expect(b[11]).toEqual({ key: '2026-03-01', label: '2026年3月', from: '2026-03-01', to: '2026-03-31' });
  });

  it('weeks run Monday to Sunday, labelled by their Monday, clipped to the period', () => {
    // 2025-04-01 is a Tuesday; 2025-04-13 a Sunday.
    expect(keysAndLabels('2025-04-01', '2025-04-14', 'week')).toEqual([
      ['2025-03-31', '3/31週', '2025-04-01', '2025-04-06'],
      ['2025-04-07', '4/7週', '2025-04-07', '2025-04-13'],
      ['2025-04-14', '4/14週', '2025-04-14', '2025-04-14'],
    ]);
  });

  it('quarters follow the 年度: April–June is 第1四半期, January–March 第4 of the previous 年度', () => {
    expect(keysAndLabels('2025-02-15', '2025-12-31', 'quarter')).toEqual([
      ['2025-01-01', '2024年第4四半期', '2025-02-15', '2025-03-31'],
      ['2025-04-01', '2025年第1四半期', '2025-04-01', '2025-06-30'],
      ['2025-07-01', '2025年第2四半期', '2025-07-01', '2025-09-30'],
      ['2025-10-01', '2025年第3四半期', '2025-10-01', '2025-12-31'],
    ]);
  });

  it('half years follow the 年度: 上期 April–September, 下期 October–March', () => {
    expect(keysAndLabels('2025-01-01', '2026-04-30', 'half_year')).toEqual([
      ['2024-10-01', '2024年度下期', '2025-01-01', '2025-03-31'],
      ['2025-04-01', '2025年度上期', '2025-04-01', '2025-09-30'],
      ['2025-10-01', '2025年度下期', '2025-10-01', '2026-03-31'],
      ['2026-04-01', '2026年度上期', '2026-04-01', '2026-04-30'],
    ]);
  });

  it('calendar years and 年度', () => {
    expect(keysAndLabels('2024-06-01', '2025-05-31', 'year')).toEqual([
      ['2024-01-01', '2024年', '2024-06-01', '2024-12-31'],
      ['2025-01-01', '2025年', '2025-01-01', '2025-05-31'],
    ]);
    expect(keysAndLabels('2024-06-01', '2025-05-31', 'fiscal_year')).toEqual([
      ['2024-04-01', '2024年度', '2024-06-01', '2025-03-31'],
      ['2025-04-01', '2025年度', '2025-04-01', '2025-05-31'],
    ]);
  });

  it('is empty when from is after to', () => {
    expect(periodBuckets({ from: '2025-05-01', to: '2025-04-01' }, 'month')).toEqual([]);
  });

  it('buckets tile the period exactly, in order, whatever the unit', () => {
    const units: PeriodUnit[] = ['week', 'month', 'quarter', 'half_year', 'year', 'fiscal_year'];
    const dayMs = 86_400_000;
    const base = Date.UTC(2020, 0, 1);
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 2000 }),
        fc.integer({ min: 0, max: 800 }),
        fc.constantFrom(...units),
        (start, length, unit) => {
          const from = new Date(base + start * dayMs).toISOString().slice(0, 10);
          const to = new Date(base + (start + length) * dayMs).toISOString().slice(0, 10);
          const buckets = periodBuckets({ from, to }, unit);
          expect(buckets[0]!.from).toBe(from);
          expect(buckets.at(-1)!.to).toBe(to);
          for (let i = 1; i < buckets.length; i++) {
            const prevEnd = Date.parse(`${buckets[i - 1]!.to}T00:00:00Z`);
            expect(Date.parse(`${buckets[i]!.from}T00:00:00Z`)).toBe(prevEnd + dayMs);
            expect(buckets[i]!.key).toBe(buckets[i]!.from);
          }
          for (const b of buckets) expect(b.key <= b.from && b.from <= b.to).toBe(true);
        },
      ),
    );
  });
});
