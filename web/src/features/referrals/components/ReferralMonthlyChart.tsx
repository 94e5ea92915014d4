import '@mantine/charts/styles.css';
import { BarChart } from '@mantine/charts';
import { ScrollArea, Table } from '@mantine/core';
import type { ChartData } from '@renkei/contracts';

const colors: Record<string, string> = {
  referrals: 'blue.6',
  admitted: 'teal.6',
  operated: 'orange.6',
  reverse_referrals: 'grape.5',
};

/** Monthly referrals, admissions and operations as bars, and the same figures as a table. */
export function ReferralMonthlyChart({ data }: { data: ChartData }) {
  const rows = data.labels.map((label, i) => ({
    label,
    ...Object.fromEntries(data.series.map((s) => [s.key, s.values[i] ?? 0])),
  }));
  return (
    <>
      <BarChart
        h={280}
        data={rows}
        dataKey="label"
        series={data.series.map((s) => ({ name: s.key, label: s.name, color: colors[s.key] ?? 'gray.6' }))}
        withLegend
        tickLine="y"
        data-testid="referral-chart"
      />
      <ScrollArea h={260} data-table-scroll>
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
            {data.labels.map((label, i) => (
              <Table.Tr key={label}>
                <Table.Td>{label}</Table.Td>
                {data.series.map((s) => (
                  <Table.Td key={s.key} ta="right">
                    {s.values[i] ?? '-'}
                  </Table.Td>
                ))}
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </ScrollArea>
    </>
  );
}
