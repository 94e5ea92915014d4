import { Group, Stack, Text } from '@mantine/core';
import type { ReportKind, ReportResult } from '@renkei/contracts';
import { ListPagination } from '../../../ui/ListPagination.tsx';
import { reportKinds } from '../report-kinds.ts';
import { ReportGrid } from './ReportGrid.tsx';

const count = (n: number) => n.toLocaleString('ja-JP');
const rangeOf = ({ meta, rows }: ReportResult) => {
  const from = (meta.page - 1) * meta.per_page + 1;
  return `${count(from)}〜${count(from + rows.length - 1)}`;
};

/**
 * One page of a report's result. `kind` makes institution rows link to their CRM page; `onPageChange`
 * shows the page links (without it the page shows alone, as a dashboard's excerpt does).
 */
export function ReportResultTable({
  result,
  kind,
  onPageChange,
}: {
  result: ReportResult;
  kind?: ReportKind;
  onPageChange?: (page: number) => void;
}) {
  return (
    <Stack gap="xs">
      <Group gap={4}>
        <Text size="sm" c="dimmed" data-testid="report-total">
          全{result.meta.total_count.toLocaleString('ja-JP')}件
        </Text>
        {/* Which rows these are: a page printed or read alone is not the whole report. */}
        {result.meta.total_pages > 1 && result.rows.length > 0 && (
          <Text size="sm" c="dimmed" data-testid="report-range">
            （{rangeOf(result)}件目）
          </Text>
        )}
      </Group>
      <ReportGrid
        columns={result.columns}
        rows={result.rows}
        linkInstitutions={kind ? reportKinds[kind].linksInstitutions : false}
        testId="report-result"
      />
      {onPageChange && (
        <Group data-print-hide>
          <ListPagination
            totalPages={result.meta.total_pages}
            value={result.meta.page}
            onChange={onPageChange}
            aria-label="ページ"
          />
        </Group>
      )}
    </Stack>
  );
}
