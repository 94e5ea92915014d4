import { Button, Group, MultiSelect, Stack, Text } from '@mantine/core';
import type { ReportDefinition, ReportKind } from '@renkei/contracts';
import { useQuery, useSuspenseQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { fieldErrorsOf } from '../../../api/api-errors.ts';
import { useServices } from '../../../app/services-context.tsx';
import { exportTableOf, saveReportTable, type ReportFileFormat } from '../report-format.ts';
import { CsvExportButton } from '../../../ui/CsvExportButton.tsx';
import { reportQueries } from '../reports.queries.ts';
import { ReportGrid } from './ReportGrid.tsx';

/** 集計: the report's filtered rows grouped by 1–3 items, with their counts, figures and a totals row. */
export function ReportAggregationPanel({ kind, definition }: { kind: ReportKind; definition: ReportDefinition }) {
  const { api } = useServices();
  const { data: items } = useSuspenseQuery(reportQueries.items(api, kind));
  const [choice, setChoice] = useState<string[]>([]);
  const [grouping, setGrouping] = useState<string[] | null>(null);
  const options = [
    ...items.filter((i) => !i.periodic).map((i) => ({ value: i.key, label: i.label })),
    ...(kind === 'communication_reports' ? [{ value: 'period', label: '期間' }] : []),
  ];
  const result = useQuery({
    ...reportQueries.aggregation(api, kind, definition.id, grouping ?? []),
    enabled: grouping !== null,
  });
  const error = result.error ? (Object.values(fieldErrorsOf(result.error))[0] ?? '集計できませんでした') : null;
  const saveAggregation = (data: NonNullable<typeof result.data>, format: ReportFileFormat) =>
    saveReportTable(exportTableOf(`${definition.name}_集計`, data.columns, data.rows, data.totals), format);
  return (
    <Stack gap="sm">
      <Group align="flex-end" gap="xs" data-print-hide>
        <MultiSelect
          label="集計軸（3つまで）"
          data={options}
          value={choice}
          onChange={setChoice}
          maxValues={3}
          searchable
          w={420}
          data-testid="aggregation-grouping"
        />
        <Button disabled={choice.length === 0} onClick={() => setGrouping(choice)} data-testid="aggregation-run">
          集計
        </Button>
        {result.data && (
          <CsvExportButton
            testId="aggregation-export"
            download={(encoding) => saveAggregation(result.data, encoding)}
            downloadExcel={() => saveAggregation(result.data, 'xlsx')}
          />
        )}
      </Group>
      {grouping === null ? (
        <Text size="sm" c="dimmed">
          集計軸を選んで「集計」を押すと、絞り込み後の行をまとめた件数と合計を表示します。
        </Text>
      ) : result.isPending ? (
        <Text size="sm" c="dimmed">
          集計しています…
        </Text>
      ) : error ? (
        <Text size="sm" c="red">
          {error}
        </Text>
      ) : (
        result.data && (
          <ReportGrid
            columns={result.data.columns}
            rows={result.data.rows}
            totals={result.data.totals}
            testId="aggregation-result"
            label="集計結果"
          />
        )
      )}
    </Stack>
  );
}
