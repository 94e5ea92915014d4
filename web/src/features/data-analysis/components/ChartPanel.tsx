import '@mantine/charts/styles.css';
import { BarChart, LineChart } from '@mantine/charts';
import type { ChartData } from '@renkei/contracts';
import type { UseQueryResult } from '@tanstack/react-query';
import { AnalysisTable, exportOf, type TableColumn } from './AnalysisTable.tsx';
import { ExportMenu } from './ExportMenu.tsx';
import { Panel, QueryBody } from './Panel.tsx';

const palette = ['blue.6', 'gray.5', 'teal.6', 'orange.6', 'grape.5', 'cyan.6'];

/** A chart's figures as a table: one row per label, one column per series. */
function chartTable(name: string, axis: string, chart: ChartData) {
  const columns: TableColumn[] = [
    { key: 'label', label: axis },
    ...chart.series.map((s) => ({ key: `s_${s.key}`, label: s.name, format: 'count' as const })),
  ];
  const rows = chart.labels.map((label, i) => ({
    label,
    ...Object.fromEntries(chart.series.map((s) => [`s_${s.key}`, s.values[i] ?? null])),
  }));
  return { columns, table: exportOf(name, columns, rows) };
}

/** A chart of a comparison call with its figures under it, exportable as a table. */
export function ChartPanel({
  title,
  testId,
  axis,
  kind,
  query,
}: {
  title: string;
  testId: string;
  axis: string;
  kind: 'line' | 'bar';
  query: UseQueryResult<ChartData>;
}) {
  const shaped = query.data ? chartTable(title, axis, query.data) : undefined;
  return (
    <Panel title={title} testId={testId} actions={<ExportMenu table={shaped?.table} testId={testId} />}>
      <QueryBody query={query} height={420}>
        {(chart) => {
          const { columns, table } = chartTable(title, axis, chart);
          const data = table.rows.map((r) => ({ ...r }));
          const series = chart.series.map((s, i) => ({
            name: `s_${s.key}`,
            label: s.name,
            color: palette[i % palette.length]!,
          }));
          const common = { h: 260, data, dataKey: 'label', series, withLegend: true, tickLine: 'y' as const };
          // Drawn at once: recharts animates every series for about a second, redrawing (and measuring)
          // the chart each frame while the page's other panels render; paper may catch it half drawn.
          const still = { isAnimationActive: false } as const;
          return (
            <>
              {/* On paper the chart stays whole; the rows of its table may run onto the next page. */}
              <div style={{ breakInside: 'avoid' }}>
                {kind === 'line' ? (
                  <LineChart {...common} connectNulls={false} lineProps={still} />
                ) : (
                  <BarChart {...common} barProps={still} />
                )}
              </div>
              <AnalysisTable columns={columns} table={table} maxHeight={150} />
            </>
          );
        }}
      </QueryBody>
    </Panel>
  );
}
