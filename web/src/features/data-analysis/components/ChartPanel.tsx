import type { ChartData } from '@renkei/contracts';
import type { UseQueryResult } from '@tanstack/react-query';
import { withoutComparison } from '../figures.ts';
import { AnalysisTable, exportOf, type TableColumn } from './AnalysisTable.tsx';
import { ExportMenu } from './ExportMenu.tsx';
import { Panel, QueryBody } from './Panel.tsx';
import { SvgChart } from './SvgChart.tsx';

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
  withComparison = true,
}: {
  title: string;
  testId: string;
  axis: string;
  kind: 'line' | 'bar';
  query: UseQueryResult<ChartData>;
  /** False when the page compares with nothing: the comparison series are left out of the chart and its table. */
  withComparison?: boolean;
}) {
  const data = query.data && !withComparison ? withoutComparison(query.data) : query.data;
  const shaped = data ? chartTable(title, axis, data) : undefined;
  return (
    <Panel title={title} testId={testId} actions={<ExportMenu table={shaped?.table} testId={testId} />}>
      <QueryBody query={query} height={420}>
        {() => {
          // The body renders only with an answer, which `data` and `shaped` already hold.
          const chart = data!;
          const { columns, table } = shaped!;
          const series = chart.series.map((s, i) => ({
            key: s.key,
            label: s.name,
            color: palette[i % palette.length]!,
            values: s.values,
          }));
          return (
            <>
              <SvgChart kind={kind} labels={chart.labels} series={series} height={260} label={title} />
              <AnalysisTable columns={columns} table={table} maxHeight={150} />
            </>
          );
        }}
      </QueryBody>
    </Panel>
  );
}
