import { Badge, Group, Pagination, SegmentedControl, Stack, Table, Text, Tooltip } from '@mantine/core';
import { useSuspenseQuery } from '@tanstack/react-query';
import { endpoints, type EmailReportFilter } from '@renkei/contracts';
import { useServices } from '../../../app/services-context.tsx';
import { CsvExportButton } from '../../../ui/CsvExportButton.tsx';
import { downloadFile } from '../../imports/file-transfer.ts';
import { emailQueries } from '../emails.queries.ts';

const reportFilters: { value: EmailReportFilter | 'all'; label: string }[] = [
  { value: 'all', label: 'すべて' },
  { value: 'opened', label: '開封' },
  { value: 'clicked', label: 'クリック' },
  { value: 'bounced', label: '不達' },
  { value: 'unsubscribed', label: '配信停止' },
  { value: 'in_doubt', label: '結果不明' },
];

/** What a recipient in doubt means (docs/decisions.md, "Email delivery throughput"). */
const inDoubtExplanation = (delivered: boolean) =>
  delivered
    ? '送信中に障害が起きたため、このメールの配信結果を記録できませんでした。再送して配信済みですが、二重に届いている可能性があります。'
    : '送信中に障害が起きたため、このメールの配信結果が分かりません。再送を待っています。';

const Flag = ({ on, label = '済', color = 'teal' }: { on: boolean; label?: string; color?: string }) =>
  on ? (
    <Badge color={color} variant="light">
      {label}
    </Badge>
  ) : (
    <Text c="dimmed" size="sm">
      —
    </Text>
  );

/** The per-recipient table of a campaign: a filter, CSV of the same filter, pages. */
export function EmailRecipientReports({
  id,
  page,
  filter,
  onChange,
}: {
  id: string;
  page: number;
  filter: EmailReportFilter | undefined;
  onChange: (next: { page: number; filter: EmailReportFilter | undefined }) => void;
}) {
  const services = useServices();
  const { data: reports } = useSuspenseQuery(emailQueries.reports(services.api, id, page, filter));
  return (
    <Stack gap="sm">
      <Group justify="space-between">
        <SegmentedControl
          aria-label="絞り込み"
          data={reportFilters}
          value={filter ?? 'all'}
          onChange={(value) =>
            onChange({ page: 1, filter: value === 'all' ? undefined : (value as EmailReportFilter) })
          }
        />
        <Group gap="sm">
          <Text size="sm" c="dimmed" data-testid="email-report-count">
            {reports.meta.total_count}件
          </Text>
          <CsvExportButton
            testId="email-report-export"
            download={(encoding) =>
              downloadFile(
                services,
                // The download helper fills no path parameters: the path is this email's.
                { ...endpoints.exportEmailReports, path: `/emails/${encodeURIComponent(id)}/reports/export` },
                { query: { filter, encoding }, fallbackName: 'email-report.csv' },
              )
            }
          />
        </Group>
      </Group>
      {reports.data.length === 0 ? (
        <Text c="dimmed" size="sm">
          条件に合う送信先はありません。
        </Text>
      ) : (
        <Table striped>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>メールアドレス</Table.Th>
              <Table.Th>氏名</Table.Th>
              <Table.Th>医療機関</Table.Th>
              <Table.Th>配信</Table.Th>
              <Table.Th>開封</Table.Th>
              <Table.Th>クリック</Table.Th>
              <Table.Th>不達</Table.Th>
              <Table.Th>配信停止</Table.Th>
              <Table.Th>配信結果</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {reports.data.map((r) => (
              <Table.Tr key={r.id} data-testid="email-report-row">
                <Table.Td>{r.email_address}</Table.Td>
                <Table.Td>{r.name ?? ''}</Table.Td>
                <Table.Td>{r.medical_institution?.name ?? ''}</Table.Td>
                <Table.Td>
                  <Flag on={r.delivered} />
                </Table.Td>
                <Table.Td>
                  <Flag on={r.opened} />
                </Table.Td>
                <Table.Td>
                  <Flag on={r.clicked} />
                </Table.Td>
                <Table.Td>
                  {r.bounced ? (
                    <Tooltip label={r.bounce_reason ?? '理由不明'} withArrow>
                      <Badge color="red" variant="light">
                        不達
                      </Badge>
                    </Tooltip>
                  ) : (
                    <Flag on={false} />
                  )}
                </Table.Td>
                <Table.Td>
                  <Flag on={r.unsubscribed} label="停止" color="gray" />
                </Table.Td>
                <Table.Td>
                  {r.delivery_in_doubt ? (
                    <Tooltip label={inDoubtExplanation(r.delivered)} multiline w={280} withArrow>
                      <Badge color="orange" variant="light" data-testid="email-report-in-doubt">
                        {r.delivered ? '重複の可能性' : '結果不明'}
                      </Badge>
                    </Tooltip>
                  ) : (
                    <Flag on={false} />
                  )}
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
      {reports.meta.total_pages > 1 && (
        <Pagination
          total={reports.meta.total_pages}
          value={page}
          onChange={(p) => onChange({ page: p, filter })}
          aria-label="ページ"
        />
      )}
    </Stack>
  );
}
