import '@mantine/charts/styles.css';
import { BarChart } from '@mantine/charts';
import { ScrollArea, Table, Text } from '@mantine/core';
import type { ChartData } from '@renkei/contracts';
import { Fragment } from 'react';
import { todayInJapan } from '../../data-analysis/analysis-periods.ts';
import { fiscalMonthsLabel, fiscalYearTable } from '../referral-figures.ts';

const colors: Record<string, string> = {
  referrals: 'blue.6',
  admitted: 'teal.6',
  operated: 'orange.6',
  reverse_referrals: 'grape.5',
};

const count = (n: number) => n.toLocaleString('ja-JP');

/**
 * Monthly referrals, admissions and operations as bars, and the same figures as a table by 年度: the
 * newest 年度 first (what an owner reads first), each with its total up to this month, the month under way
 * marked, and the months still to come shown as 「—」 rather than as months without referrals (a figure dated
 * in one, most often a mistyped year, is shown, but not added to the total).
 */
export function ReferralMonthlyChart({ data, now = new Date() }: { data: ChartData; now?: Date }) {
  const rows = data.labels.map((label, i) => ({
    label,
    ...Object.fromEntries(data.series.map((s) => [s.key, s.values[i] ?? 0])),
  }));
  const years = fiscalYearTable(data, todayInJapan(now));
  return (
    <>
      <BarChart
        h={280}
        data={rows}
        dataKey="label"
        series={data.series.map((s) => ({ name: s.key, label: s.name, color: colors[s.key] ?? 'gray.6' }))}
        withLegend
        tickLine="y"
        // Counts: an axis of 0.25, 0.5, 0.75 referrals means nothing.
        yAxisProps={{ allowDecimals: false }}
        data-testid="referral-chart"
      />
      {/* The scrolling box takes focus: a keyboard user scrolls its months with the arrow keys. */}
      <ScrollArea
        h={260}
        data-table-scroll
        viewportProps={{ tabIndex: 0, role: 'region', 'aria-label': '月別の件数（年度別）' }}
      >
        <Table striped fz="xs" stickyHeader data-testid="referral-monthly-table">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>月</Table.Th>
              {data.series.map((s) => (
                <Table.Th key={s.key} ta="right">
                  {s.name}
                </Table.Th>
              ))}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {years.map((year) => (
              <Fragment key={year.fiscalYear}>
                {year.months.map((m) => (
                  <Table.Tr key={m.label} data-month-state={m.state}>
                    <Table.Td>
                      {m.label}
                      {m.state === 'current' && (
                        <Text span size="xs" c="dimmed">
                          （途中）
                        </Text>
                      )}
                    </Table.Td>
                    {m.values.map((v, i) => (
                      <Table.Td key={data.series[i]!.key} ta="right" c={m.state === 'future' ? 'dimmed' : undefined}>
                        {/* A row dated in a month to come (a mistyped year, most often) is shown, not hidden. */}
                        {m.state === 'future' && v === 0 ? '—' : count(v)}
                      </Table.Td>
                    ))}
                  </Table.Tr>
                ))}
                <Table.Tr data-fiscal-total={year.fiscalYear} fw={600}>
                  <Table.Td>
                    {year.fiscalYear}年度 計
                    {year.throughMonth !== null && `（${fiscalMonthsLabel(year.throughMonth)}）`}
                  </Table.Td>
                  {year.totals.map((v, i) => (
                    <Table.Td key={data.series[i]!.key} ta="right">
                      {count(v)}
                    </Table.Td>
                  ))}
                </Table.Tr>
              </Fragment>
            ))}
          </Table.Tbody>
        </Table>
      </ScrollArea>
    </>
  );
}
