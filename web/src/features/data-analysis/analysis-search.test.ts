import { describe, expect, it } from 'vitest';
import { isCalendarDay } from '../../app/search-params.ts';
import {
  comparisonOf,
  fiscalYearOf,
  markPartialBuckets,
  periodProblem,
  todayInJapan,
  withDefaults,
  yearToDateEnd,
} from './analysis-periods.ts';
import { analysisSearch } from './analysis-search.ts';

const uuid = '00000000-0000-4000-8000-000000000001';

describe('analysis search', () => {
  it('defaults to this 年度 from April 1 to today against the same dates last 年度', () => {
    const f = withDefaults({}, '2026-11-24');
    expect(f).toMatchObject({ from: '2026-04-01', to: '2026-11-24', unit: 'month', cmp: 'last_year' });
    expect(comparisonOf(f, f.cmp)).toEqual({ from: '2025-04-01', to: '2025-11-24' });
    expect(withDefaults({}, '2027-02-10').from).toBe('2026-04-01');
  });

  it("ends this 年度 to date at the data's last day, so the comparison holds no day the data cannot have yet", () => {
    // December 1st with the export up to November 30th: 4/1〜11/30 against 4/1〜11/30 a year before, not
    // against last year's December 1st too.
    const f = withDefaults({}, '2026-12-01', '2026-11-30');
    expect(f).toMatchObject({ from: '2026-04-01', to: '2026-11-30' });
    expect(comparisonOf(f, f.cmp)).toEqual({ from: '2025-04-01', to: '2025-11-30' });
    // A monthly upload mid-month: to the last month end.
    expect(yearToDateEnd('2026-11-17', '2026-10-31')).toBe('2026-10-31');
    // Data up to today (hand entries), no data, or data only of the last 年度 (April's first days): today.
    expect(yearToDateEnd('2026-11-17', '2026-11-17')).toBe('2026-11-17');
    expect(yearToDateEnd('2026-11-17', null)).toBe('2026-11-17');
    expect(yearToDateEnd('2026-04-03', '2026-03-31')).toBe('2026-04-03');
    // A period in the link is kept as it is.
    expect(withDefaults({ to: '2026-12-01' }, '2026-12-01', '2026-11-30').to).toBe('2026-12-01');
  });

  it('keeps an own-department filter cleared on purpose: every department', () => {
    expect(analysisSearch({ own: [] })).toEqual({ own: [] });
    expect(withDefaults(analysisSearch({ own: [] }), '2026-11-24').own).toEqual([]);
  });

  it('says when the period cuts its first or last bucket short, in every unit', () => {
    const chart = (...labels: string[]) => ({ labels, series: [] });
    // The 1st of a month: the default view's last month holds one day.
    expect(
      markPartialBuckets(chart('2026年11月', '2026年12月'), { from: '2026-11-01', to: '2026-12-01', unit: 'month' })
        .labels,
    ).toEqual(['2026年11月', '2026年12月（12/1まで）']);
    // Whole units: unchanged (the same object).
    const whole = chart('2025年度');
    expect(markPartialBuckets(whole, { from: '2025-04-01', to: '2026-03-31', unit: 'fiscal_year' })).toBe(whole);
    expect(
      markPartialBuckets(chart('a', 'b'), { from: '2024-10-01', to: '2025-09-30', unit: 'half_year' }).labels,
    ).toEqual(['a', 'b']);
    expect(markPartialBuckets(chart('a'), { from: '2026-01-01', to: '2026-03-31', unit: 'quarter' }).labels).toEqual([
      'a',
    ]);
    // Cut at both ends, one bucket or several; weeks run Monday to Sunday, February has its own last day.
    expect(markPartialBuckets(chart('a'), { from: '2026-04-15', to: '2026-04-20', unit: 'month' }).labels).toEqual([
      'a（4/15〜4/20）',
    ]);
    expect(
      markPartialBuckets(chart('a', 'b', 'c'), { from: '2026-11-25', to: '2026-12-08', unit: 'week' }).labels,
    ).toEqual(['a（11/25から）', 'b', 'c（12/8まで）']);
    expect(markPartialBuckets(chart('a', 'b'), { from: '2024-01-01', to: '2024-02-29', unit: 'month' }).labels).toEqual(
      ['a', 'b'],
    );
    expect(markPartialBuckets(chart('a', 'b'), { from: '2025-01-01', to: '2025-02-28', unit: 'year' }).labels).toEqual([
      'a',
      'b（2/28まで）',
    ]);
  });

  it('reads the area of a link: prefecture codes 01–47 and municipalities', () => {
    expect(analysisSearch({ pref: ['22', '13'], city: ['静岡市葵区'] })).toEqual({
      pref: ['22', '13'],
      city: ['静岡市葵区'],
    });
    expect(analysisSearch({ pref: ['22', '48'], city: [''] })).toEqual({});
  });

  it('keeps the valid pieces of a link and drops the bad ones alone', () => {
    expect(
      analysisSearch({
        from: '2025-04-01',
        to: '2026-03-31',
        unit: 'quarter',
        cmp: 'bogus',
        own: [uuid],
        ft: ['x'.repeat(21)],
        tags: 'not-a-list',
      }),
    ).toEqual({ from: '2025-04-01', to: '2026-03-31', unit: 'quarter', own: [uuid] });
    expect(analysisSearch({ from: '2026-02-30', to: '2026-03-01' })).toEqual({});
    expect(analysisSearch({ from: '2026-03-02', to: '2026-03-01' })).toEqual({});
  });

  it('reads the dates of a link as the other pages do: any real calendar day, early years too', () => {
    for (const day of ['2025-02-30', '2025-13-01', '2025-00-10', '2025-4-01', '20250401', '', 20250401])
      expect(analysisSearch({ from: day, to: '2026-03-31' }), String(day)).toEqual({});
    // A year being typed into the date field passes through 0002, 0020 and 0202: it stays as typed.
    for (const from of ['0002-04-01', '0050-01-01', '0999-12-31', '2024-02-29']) {
      expect(isCalendarDay(from)).toBe(true);
      expect(analysisSearch({ from, to: '2026-03-31' })).toEqual({ from, to: '2026-03-31' });
    }
  });

  it('compares February 29 with the 28th of a common year, and the previous period by its length', () => {
    expect(comparisonOf({ from: '2028-02-01', to: '2028-02-29' }, 'last_year')).toEqual({
      from: '2027-02-01',
      to: '2027-02-28',
    });
    // A month's last day stays the last day: the whole February of a leap year, and a 年度 to date to the day.
    expect(comparisonOf({ from: '2029-02-01', to: '2029-02-28' }, 'last_year')).toEqual({
      from: '2028-02-01',
      to: '2028-02-29',
    });
    expect(comparisonOf({ from: '2026-04-01', to: '2026-11-24' }, 'last_year')).toEqual({
      from: '2025-04-01',
      to: '2025-11-24',
    });
    // A period from a month's first day meets the whole months just before it, month for month.
    expect(comparisonOf({ from: '2026-04-01', to: '2026-04-30' }, 'previous')).toEqual({
      from: '2026-03-01',
      to: '2026-03-31',
    });
    expect(comparisonOf({ from: '2026-04-01', to: '2026-11-30' }, 'previous')).toEqual({
      from: '2025-08-01',
      to: '2026-03-31',
    });
    expect(comparisonOf({ from: '2026-04-01', to: '2026-11-24' }, 'previous')).toEqual({
      from: '2025-08-01',
      to: '2026-03-24',
    });
    expect(comparisonOf({ from: '2028-03-01', to: '2028-03-31' }, 'previous')).toEqual({
      from: '2028-02-01',
      to: '2028-02-29',
    });
    expect(comparisonOf({ from: '2026-03-01', to: '2026-03-30' }, 'previous')).toEqual({
      from: '2026-02-01',
      to: '2026-02-28',
    });
    expect(comparisonOf({ from: '2025-04-01', to: '2026-03-31' }, 'previous')).toEqual({
      from: '2024-04-01',
      to: '2025-03-31',
    });
    // Other periods: the days just before, as many days.
    expect(comparisonOf({ from: '2026-04-10', to: '2026-04-19' }, 'previous')).toEqual({
      from: '2026-03-31',
      to: '2026-04-09',
    });
    expect(comparisonOf({ from: '2026-04-01', to: '2026-04-30' }, 'none')).toBeNull();
  });

  it('compares early years as dates of four digits, by the calendar of those years', () => {
    expect(comparisonOf({ from: '0050-01-01', to: '0050-12-31' }, 'last_year')).toEqual({
      from: '0049-01-01',
      to: '0049-12-31',
    });
    expect(comparisonOf({ from: '0050-01-01', to: '0050-03-31' }, 'previous')).toEqual({
      from: '0049-10-01',
      to: '0049-12-31',
    });
    // Year 0 is a leap year (divisible by 400), unlike the 1900 that Date.UTC would read it as.
    expect(comparisonOf({ from: '0001-02-01', to: '0001-02-28' }, 'last_year')).toEqual({
      from: '0000-02-01',
      to: '0000-02-29',
    });
  });

  it('reads the 年度 and today in Japan', () => {
    expect(fiscalYearOf('2026-03-31')).toBe(2025);
    expect(fiscalYearOf('2026-04-01')).toBe(2026);
    expect(todayInJapan(new Date('2026-03-31T15:30:00Z'))).toBe('2026-04-01');
  });

  it('says why a period the API refuses cannot be asked: its own dates, or the dates it is compared with', () => {
    expect(periodProblem({ from: '2025-04-01', to: '2026-03-31', cmp: 'last_year' })).toBeNull();
    // A year being typed passes through such a date.
    expect(periodProblem({ from: '0002-04-01', to: '2026-03-31', cmp: 'none' })).toMatch(
      /1900年1月1日から2100年12月31日/,
    );
    expect(periodProblem({ from: '2025-04-01', to: '2101-01-01', cmp: 'none' })).toMatch(/1900年1月1日から/);
    // Last year of 1900 is 1899; so is the period just before, which visit effectiveness compares with.
    expect(periodProblem({ from: '1900-04-01', to: '1900-12-31', cmp: 'last_year' })).toMatch(/比べる期間/);
    expect(periodProblem({ from: '1900-04-01', to: '1900-12-31', cmp: 'none' })).toMatch(/比べる期間/);
    expect(periodProblem({ from: '1901-04-01', to: '1901-12-31', cmp: 'last_year' })).toBeNull();
  });
});
