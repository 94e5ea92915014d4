import type { UseQueryResult } from '@tanstack/react-query';
import type { ReferralReportResult } from '@renkei/contracts';
import type { z } from 'zod';
import { breakdownRows, type GroupLabels } from '../breakdown.ts';
import { AnalysisTable, exportOf, type TableColumn } from './AnalysisTable.tsx';
import { ExportMenu } from './ExportMenu.tsx';
import { Panel, QueryBody } from './Panel.tsx';
import { combine } from '../combine-queries.ts';

type Result = z.infer<typeof ReferralReportResult>;

function columnsOf(groupLabel: string, hasComparison: boolean): TableColumn[] {
  return [
    { key: 'name', label: groupLabel },
    { key: 'referrals', label: '紹介件数', format: 'count' },
    ...(hasComparison
      ? ([
          { key: 'previous', label: '比較期間', format: 'count' },
          { key: 'change', label: '増減', format: 'change' },
          { key: 'change_rate', label: '増減率(%)', format: 'rate' },
        ] as const)
      : []),
    { key: 'admissions', label: '入院', format: 'count' },
    { key: 'admission_rate', label: '入院率(%)', format: 'percent' },
    { key: 'operations', label: '手術', format: 'count' },
    { key: 'operation_rate', label: '手術率(%)', format: 'percent' },
  ];
}

/** Referrals of the period by one grouping, against the comparison period, with admissions and operations. */
export function BreakdownPanel({
  title,
  testId,
  groupLabel,
  by,
  labels,
  current,
  comparison,
}: {
  title: string;
  testId: string;
  groupLabel: string;
  by: readonly string[];
  labels?: GroupLabels;
  current: UseQueryResult<Result>;
  comparison: UseQueryResult<Result> | null;
}) {
  const query = combine(current, comparison);
  const columns = columnsOf(groupLabel, comparison !== null);
  const table = query.data
    ? exportOf(title, columns, breakdownRows(query.data[0], query.data[1], by, labels))
    : undefined;
  return (
    <Panel title={title} testId={testId} actions={<ExportMenu table={table} testId={testId} />}>
      <QueryBody query={query} height={320}>
        {() => <AnalysisTable columns={columns} table={table!} maxHeight={300} />}
      </QueryBody>
    </Panel>
  );
}
