import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  addDays,
  bucketKey,
  bucketsOf,
  coveredValue,
  fiscalYearOf,
  previousYearPeriod,
  shiftYears,
  splitForRollups,
  yearToDate,
  type AnalysisPeriodUnit,
} from './periods.ts';

const units: AnalysisPeriodUnit[] = ['week', 'month', 'quarter', 'half_year', 'year', 'fiscal_year'];
const day = fc
  .integer({ min: Date.UTC(2019, 0, 1), max: Date.UTC(2030, 11, 31) })
  .map((ms) => new Date(ms).toISOString().slice(0, 10));
const range = fc
  .tuple(day, fc.integer({ min: 0, max: 800 }))
  .map(([from, length]) => ({ from, to: addDays(from, length) }));

describe('fiscal years (年度)', () => {
  it('start on April 1st: March 31st belongs to the year before', () => {
    expect(fiscalYearOf('2025-03-31')).toBe(2024);
    expect(fiscalYearOf('2025-04-01')).toBe(2025);
    expect(bucketKey('2025-03-31', 'fiscal_year')).toBe('2024-04-01');
    expect(bucketKey('2025-04-01', 'fiscal_year')).toBe('2025-04-01');
  });

  it('quarters and halves follow the 年度', () => {
    expect(bucketsOf({ from: '2024-04-01', to: '2025-03-31' }, 'quarter').map((b) => b.label)).toEqual([
      '2024年度 第1四半期',
      '2024年度 第2四半期',
      '2024年度 第3四半期',
      '2024年度 第4四半期',
    ]);
    expect(bucketsOf({ from: '2024-04-01', to: '2025-03-31' }, 'half_year')).toEqual([
      { key: '2024-04-01', label: '2024年度 上期', from: '2024-04-01', to: '2024-09-30' },
      { key: '2024-10-01', label: '2024年度 下期', from: '2024-10-01', to: '2025-03-31' },
    ]);
    expect(bucketKey('2025-02-10', 'half_year')).toBe('2024-10-01');
  });

  it('weeks start on Monday and are clipped to the period', () => {
    // 2024-04-01 is a Monday; 2024-03-31 a Sunday.
    expect(bucketsOf({ from: '2024-03-31', to: '2024-04-08' }, 'week')).toEqual([
      { key: '2024-03-25', label: '2024年3月25日週', from: '2024-03-31', to: '2024-03-31' },
      { key: '2024-04-01', label: '2024年4月1日週', from: '2024-04-01', to: '2024-04-07' },
      { key: '2024-04-08', label: '2024年4月8日週', from: '2024-04-08', to: '2024-04-08' },
    ]);
  });
});

describe('year over year', () => {
  it('maps a 年度 to the previous 年度, February ends included (leap years)', () => {
    expect(previousYearPeriod({ from: '2024-04-01', to: '2025-03-31' })).toEqual({
      from: '2023-04-01',
      to: '2024-03-31',
    });
    expect(shiftYears('2025-02-28', -1)).toBe('2024-02-29');
    expect(shiftYears('2024-02-29', -1)).toBe('2023-02-28');
    expect(shiftYears('2024-02-28', -1)).toBe('2023-02-28');
  });

  it('year to date cuts the period at the last covered date only when it falls inside', () => {
    const fy = { from: '2025-04-01', to: '2026-03-31' };
    expect(yearToDate(fy, '2025-09-30')).toEqual({ from: '2025-04-01', to: '2025-09-30' });
    expect(previousYearPeriod(yearToDate(fy, '2025-09-30'))).toEqual({ from: '2024-04-01', to: '2024-09-30' });
    expect(yearToDate(fy, '2026-05-01')).toEqual(fy);
    expect(yearToDate(fy, null)).toEqual(fy);
  });

  it('keeps whole months whole and the month of every date', () => {
    expect(shiftYears('2024-02-28', -1)).toBe('2023-02-28');
    fc.assert(
      fc.property(day, (d) => {
        const s = shiftYears(d, -1);
        expect(s.slice(5, 7)).toBe(d.slice(5, 7));
        expect(Number(s.slice(0, 4))).toBe(Number(d.slice(0, 4)) - 1);
        // Month end stays month end (not the converse: 2024-02-28 of a leap year meets 2023-02-28, the
        // same day, which ends its February), and the 1st stays the 1st.
        if (addDays(d, 1).slice(8) === '01') expect(addDays(s, 1).slice(8)).toBe('01');
        if (d.slice(5) !== '02-28') expect(addDays(s, 1).slice(8) === '01').toBe(addDays(d, 1).slice(8) === '01');
        expect(s.slice(8) === '01').toBe(d.slice(8) === '01');
      }),
    );
  });
});

describe('buckets', () => {
  it('partition the period: contiguous, in order, from its first to its last day', () => {
    fc.assert(
      fc.property(range, fc.constantFrom(...units), (r, unit) => {
        const buckets = bucketsOf(r, unit);
        expect(buckets[0]!.from).toBe(r.from);
        expect(buckets.at(-1)!.to).toBe(r.to);
        buckets.forEach((b, i) => {
          expect(b.from <= b.to).toBe(true);
          expect(bucketKey(b.from, unit)).toBe(b.key);
          expect(bucketKey(b.to, unit)).toBe(b.key);
          if (i > 0) expect(b.from).toBe(addDays(buckets[i - 1]!.to, 1));
        });
        expect(new Set(buckets.map((b) => b.label)).size).toBe(buckets.length);
      }),
    );
  });

  it('a bucket key is never after its date and holds it within the unit length', () => {
    const longest: Record<AnalysisPeriodUnit, number> = {
      week: 6,
      month: 30,
      quarter: 91,
      half_year: 183,
      year: 365,
      fiscal_year: 365,
    };
    fc.assert(
      fc.property(day, fc.constantFrom(...units), (d, unit) => {
        const key = bucketKey(d, unit);
        expect(key <= d).toBe(true);
        expect((Date.parse(d) - Date.parse(key)) / 86_400_000).toBeLessThanOrEqual(longest[unit]);
      }),
    );
  });
});

describe('coverage', () => {
  it('is null outside the data and the count (0 included) inside', () => {
    const coverage = { from: '2024-04-15', to: '2025-01-10' };
    expect(coveredValue({ from: '2024-03-01', to: '2024-03-31' }, coverage, 0)).toBeNull();
    expect(coveredValue({ from: '2024-04-01', to: '2024-04-30' }, coverage, 0)).toBe(0);
    expect(coveredValue({ from: '2025-01-01', to: '2025-01-31' }, coverage, 3)).toBe(3);
    expect(coveredValue({ from: '2025-02-01', to: '2025-02-28' }, coverage, 0)).toBeNull();
    expect(coveredValue({ from: '2025-02-01', to: '2025-02-28' }, null, 0)).toBeNull();
  });
});

describe('splitForRollups', () => {
  const days = (r: { from: string; to: string }) => {
    const out: string[] = [];
    for (let d = r.from; d <= r.to; d = addDays(d, 1)) out.push(d);
    return out;
  };
  it('covers every day of the period exactly once, whole grains inside, short edges outside', () => {
    fc.assert(
      fc.property(range, fc.constantFrom('segment' as const, 'month' as const), (r, grain) => {
        const { inner, edges } = splitForRollups(r, grain);
        const parts = [...(inner ? [inner] : []), ...edges].sort((a, b) => a.from.localeCompare(b.from));
        expect(parts.flatMap(days)).toEqual(days(r));
        if (inner) {
          for (const e of edges) expect(days(e).length).toBeLessThan(grain === 'month' ? 31 : 7);
          expect(inner.from.endsWith('-01') || new Date(`${inner.from}T00:00:00Z`).getUTCDay() === 1).toBe(true);
          if (grain === 'month') expect(inner.from.endsWith('-01') && addDays(inner.to, 1).endsWith('-01')).toBe(true);
        } else expect(days(r).length).toBeLessThan(grain === 'month' ? 62 : 13);
      }),
    );
  });
  it('keeps a whole-month period whole and clips a partial last month', () => {
    expect(splitForRollups({ from: '2025-04-01', to: '2025-06-30' }, 'month')).toEqual({
      inner: { from: '2025-04-01', to: '2025-06-30' },
      edges: [],
    });
    expect(splitForRollups({ from: '2025-04-01', to: '2025-11-24' }, 'month')).toEqual({
      inner: { from: '2025-04-01', to: '2025-10-31' },
      edges: [{ from: '2025-11-01', to: '2025-11-24' }],
    });
    // 2025-11-24 is a Monday: the segments up to Sunday the 23rd are whole.
    expect(splitForRollups({ from: '2025-04-01', to: '2025-11-24' }, 'segment')).toEqual({
      inner: { from: '2025-04-01', to: '2025-11-23' },
      edges: [{ from: '2025-11-24', to: '2025-11-24' }],
    });
    expect(splitForRollups({ from: '2025-11-25', to: '2025-11-27' }, 'segment')).toEqual({
      inner: null,
      edges: [{ from: '2025-11-25', to: '2025-11-27' }],
    });
  });
});
