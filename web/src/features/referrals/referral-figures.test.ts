import { renderHook } from '@testing-library/react';
import type { ChartData } from '@renkei/contracts';
import { describe, expect, it, vi } from 'vitest';
import type { ApiClient } from '../../api/api-client.ts';
import { cachedKeys } from '../../test/cached-keys.ts';
import {
  fiscalMonthsLabel,
  fiscalYearTable,
  previousToDatePeriod,
  referralFigures,
  referralFiguresPeriod,
} from './referral-figures.ts';
import { referralQueries, useCreateReferral, type ReferralInputValues } from './referrals.queries.ts';

/** A monthly answer from `from` (YYYY-MM), one referral a month, admissions and operations as given. */
function monthly(from: string, count: number, value = (i: number) => i + 1): ChartData {
  const labels: string[] = [];
  for (let i = 0; i < count; i++) {
    const d = new Date(Date.UTC(Number(from.slice(0, 4)), Number(from.slice(5, 7)) - 1 + i, 1));
    labels.push(`${d.getUTCFullYear()}年${d.getUTCMonth() + 1}月`);
  }
  return {
    labels,
    series: [
      { key: 'referrals', name: '紹介', values: labels.map((_, i) => value(i)) },
      { key: 'admitted', name: '入院', values: labels.map(() => 1) },
      { key: 'operated', name: '手術', values: labels.map(() => 0) },
    ],
  };
}

/** The last 年度 to the same date, when a test looks only at this 年度. */
const noReferrals: ChartData = { labels: [], series: [] };

describe('referral figures', () => {
  it('ask from April of the last 年度 to today', () => {
    expect(referralFiguresPeriod('2026-11-24')).toEqual({ from: '2025-04-01', to: '2026-11-24' });
    expect(referralFiguresPeriod('2027-03-31')).toEqual({ from: '2025-04-01', to: '2027-03-31' });
    expect(referralFiguresPeriod('2026-04-01')).toEqual({ from: '2025-04-01', to: '2026-04-01' });
  });

  it('compares with the last 年度 from April 1 to the same date, a month end as a month end', () => {
    expect(previousToDatePeriod('2026-11-24')).toEqual({ from: '2025-04-01', to: '2025-11-24' });
    expect(previousToDatePeriod('2026-04-01')).toEqual({ from: '2025-04-01', to: '2025-04-01' });
    expect(previousToDatePeriod('2027-01-15')).toEqual({ from: '2025-04-01', to: '2026-01-15' });
    expect(previousToDatePeriod('2028-02-29')).toEqual({ from: '2026-04-01', to: '2027-02-28' });
  });

  it('takes the comparison from the last 年度 to the same date when it is given', () => {
    const toTheDay = { labels: ['2025年4月'], series: [{ key: 'referrals', name: '紹介', values: [7] }] };
    const f = referralFigures(monthly('2025-04', 24), '2027-01-15', toTheDay);
    expect(f.previous.referrals).toBe(7);
    expect(f.previous.admissions).toBe(0);
    expect(f.current.referrals).toBe(13 + 14 + 15 + 16 + 17 + 18 + 19 + 20 + 21 + 22);
  });

  it('across the new year: April to January of both 年度, February on not counted', () => {
    // April 2025 (1) … March 2027 (24): today is 2027-01-15, 年度 2026.
    const f = referralFigures(monthly('2025-04', 24), '2027-01-15', noReferrals);
    expect(f.fiscalYear).toBe(2026);
    expect(f.throughMonth).toBe(1);
    // This 年度: April (13) to January (22).
    expect(f.current.referrals).toBe(13 + 14 + 15 + 16 + 17 + 18 + 19 + 20 + 21 + 22);
    expect(f.current.admissions).toBe(10);
    expect(f.trend.labels).toEqual([
      '4月',
      '5月',
      '6月',
      '7月',
      '8月',
      '9月',
      '10月',
      '11月',
      '12月',
      '1月',
      '2月',
      '3月',
    ]);
    // January, under way, is counted above but not drawn.
    expect(f.trend.current).toEqual([13, 14, 15, 16, 17, 18, 19, 20, 21, null, null, null]);
    // The last 年度 is drawn whole.
    expect(f.trend.previous).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    expect(fiscalMonthsLabel(f.throughMonth)).toBe('4月〜1月');
  });

  it('in April, April against April; without the reverse series it says so', () => {
    const f = referralFigures(monthly('2025-04', 13), '2026-04-01', noReferrals);
    expect(f.current.referrals).toBe(13);
    expect(f.hasReverse).toBe(false);
    expect(f.current.reverseReferrals).toBe(0);
    expect(fiscalMonthsLabel(4)).toBe('4月');
  });

  it('count nothing before the last 年度 nor after this month, and see no referral in zeros', () => {
    const f = referralFigures(
      monthly('2024-04', 48, (i) => (i < 12 || i >= 32 ? 100 : 0)),
      '2026-11-24',
      noReferrals,
    );
    // 2024年度 (i < 12) and December 2026 on (i >= 32) hold the only referrals.
    expect(f.current.referrals).toBe(0);
    expect(f.anyReferral).toBe(false);
    expect(f.trend.current.slice(8)).toEqual([null, null, null, null]);
  });

  it('a hand entry makes them stale, as it does the referral page', async () => {
    const api = { createMedicalInstitutionReferral: vi.fn(async () => ({})) };
    const id = '00000000-0000-4000-8000-000000000009';
    const { wrapper, invalidated } = cachedKeys(api, {
      figures: referralQueries.monthly(api as unknown as ApiClient, id, referralFiguresPeriod('2026-11-29')).queryKey,
    });
    const { result } = renderHook(() => useCreateReferral(), { wrapper });
    await result.current.mutateAsync({ id, body: {} as ReferralInputValues });
    expect(invalidated()).toEqual(['figures']);
  });
});

describe('the referral page table by 年度', () => {
  it('puts the newest 年度 first, April to March, and counts no month after today in its total', () => {
    // Three 年度 from April 2024, today in December 2026; one referral a month, the answer holding
    // figures for months still to come too (a wider or cached answer).
    const data = monthly('2024-04', 36, () => 1);
    const years = fiscalYearTable(data, '2026-12-01');
    expect(years.map((y) => y.fiscalYear)).toEqual([2026, 2025, 2024]);
    const [now, last] = years;
    expect(now!.months.map((m) => m.label)).toEqual([
      '2026年4月',
      '2026年5月',
      '2026年6月',
      '2026年7月',
      '2026年8月',
      '2026年9月',
      '2026年10月',
      '2026年11月',
      '2026年12月',
      '2027年1月',
      '2027年2月',
      '2027年3月',
    ]);
    expect(now!.months.map((m) => m.state)).toEqual([
      ...Array<string>(8).fill('past'),
      'current',
      'future',
      'future',
      'future',
    ]);
    // April to December: 9 referrals and 9 admissions, not 12.
    expect(now!.totals).toEqual([9, 9, 0]);
    expect(now!.throughMonth).toBe(12);
    expect(last!.totals).toEqual([12, 12, 0]);
    expect(last!.throughMonth).toBeNull();
    expect(last!.months.every((m) => m.state === 'past')).toBe(true);
  });

  it('sorts a 年度 April first whatever the order of the answer, and in April counts April alone', () => {
    const data: ChartData = {
      labels: ['2027年3月', '2026年4月', '2026年5月'],
      series: [{ key: 'referrals', name: '紹介', values: [5, 2, 7] }],
    };
    const [year] = fiscalYearTable(data, '2026-04-15');
    expect(year!.months.map((m) => [m.label, m.state, m.values[0]])).toEqual([
      ['2026年4月', 'current', 2],
      ['2026年5月', 'future', 7],
      ['2027年3月', 'future', 5],
    ]);
    expect(year!.totals).toEqual([2]);
    expect(year!.throughMonth).toBe(4);
  });
});
