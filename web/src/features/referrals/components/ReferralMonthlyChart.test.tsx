import { MantineProvider } from '@mantine/core';
import type { ChartData } from '@renkei/contracts';
import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { ReferralMonthlyChart } from './ReferralMonthlyChart.tsx';

/** 2025年4月 to 2027年3月, a referral, an admission and 1,200 reverse referrals each month up to December 2026. */
function twoYears(): ChartData {
  const labels = Array.from({ length: 24 }, (_, i) => {
    const d = new Date(Date.UTC(2025, 3 + i, 1));
    return `${d.getUTCFullYear()}年${d.getUTCMonth() + 1}月`;
  });
  return {
    labels,
    series: [
      // Up to this month (December 2026), and one referral dated March 2027.
      { key: 'referrals', name: '紹介', values: labels.map((_, i) => (i <= 20 || i === 23 ? 1 : 0)) },
      { key: 'admitted', name: '入院', values: labels.map((_, i) => (i <= 20 ? 1 : 0)) },
      { key: 'operated', name: '手術', values: labels.map(() => 0) },
      { key: 'reverse_referrals', name: '逆紹介', values: labels.map((_, i) => (i <= 20 ? 1200 : 0)) },
    ],
  };
}

const cells = (row: HTMLElement) =>
  within(row)
    .getAllByRole('cell')
    .map((c) => c.textContent);

describe('ReferralMonthlyChart', () => {
  it('tables each 年度 newest first with its total; months to come are 「—」, not months without referrals', () => {
    // 2026-12-01 10:00 in Japan.
    render(
      <MantineProvider>
        <ReferralMonthlyChart data={twoYears()} now={new Date('2026-12-01T01:00:00Z')} />
      </MantineProvider>,
    );
    const table = screen.getByTestId('referral-monthly-table');
    const rows = within(table).getAllByRole('row').slice(1);
    expect(rows.map((r) => cells(r)[0])).toEqual([
      '2026年4月',
      '2026年5月',
      '2026年6月',
      '2026年7月',
      '2026年8月',
      '2026年9月',
      '2026年10月',
      '2026年11月',
      '2026年12月（途中）',
      '2027年1月',
      '2027年2月',
      '2027年3月',
      '2026年度 計（4月〜12月）',
      '2025年4月',
      '2025年5月',
      '2025年6月',
      '2025年7月',
      '2025年8月',
      '2025年9月',
      '2025年10月',
      '2025年11月',
      '2025年12月',
      '2026年1月',
      '2026年2月',
      '2026年3月',
      '2025年度 計',
    ]);
    expect(cells(rows[8]!)).toEqual(['2026年12月（途中）', '1', '1', '0', '1,200']);
    expect(cells(rows[9]!)).toEqual(['2027年1月', '—', '—', '—', '—']);
    // A referral dated in a month to come is shown there (a mistyped year must not vanish), not in the total.
    expect(cells(rows[11]!)).toEqual(['2027年3月', '1', '—', '—', '—']);
    expect(cells(rows[12]!)).toEqual(['2026年度 計（4月〜12月）', '9', '9', '0', '10,800']);
    expect(cells(rows[25]!)).toEqual(['2025年度 計', '12', '12', '0', '14,400']);
  });

  it('its table scrolls in a box that Tab reaches, named for the table', async () => {
    render(
      <MantineProvider>
        <ReferralMonthlyChart data={twoYears()} now={new Date('2026-12-01T01:00:00Z')} />
      </MantineProvider>,
    );
    const box = screen.getByRole('region', { name: '月別の件数（年度別）' });
    expect(box).toContainElement(screen.getByTestId('referral-monthly-table'));
    await userEvent.tab();
    expect(box).toHaveFocus();
  });
});
