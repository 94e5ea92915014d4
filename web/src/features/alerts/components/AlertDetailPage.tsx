import { Badge, Button, Group, Paper, Stack, Table, Text, Title } from '@mantine/core';
import { useSuspenseQuery } from '@tanstack/react-query';
import { useServices } from '../../../app/services-context.tsx';
import { toast } from '../../../app/toast.ts';
import { useMutationErrorHandler } from '../../../errors/useMutationErrorHandler.ts';
import { CsvExportButton } from '../../../ui/CsvExportButton.tsx';
import { ListPagination } from '../../../ui/ListPagination.tsx';
import { PrintStyle } from '../../../ui/PrintStyle.tsx';
import { formatFraction } from '../../../ui/percent.ts';
import { noWrap } from '../../../ui/table-styles.ts';
import { AnchorLink, ButtonLink } from '../../medical-institutions/components/router-links.tsx';
import { alertMonthLabel, alertQueries, useArchiveAlert } from '../alerts.queries.ts';
import { downloadAlertCsv } from './alert-csv.ts';

export interface AlertDetailParams {
  page: number;
}

export const alertInstitutionsQueryOf = (p: AlertDetailParams) => ({ page: p.page, per_page: 50 });

/** One alert: its condition, month and institutions with their figures; archived, exported or printed. */
export function AlertDetailPage({
  id,
  params,
  onParamsChange,
}: {
  id: string;
  params: AlertDetailParams;
  onParamsChange: (next: Partial<AlertDetailParams>) => void;
}) {
  const { api } = useServices();
  const { data: alert } = useSuspenseQuery(alertQueries.detail(api, id));
  const { data: list } = useSuspenseQuery(alertQueries.institutions(api, id, alertInstitutionsQueryOf(params)));
  const archive = useArchiveAlert();
  const onError = useMutationErrorHandler();

  const archiveAlert = async () => {
    try {
      await archive.mutateAsync(alert.id);
      toast.success('アラートをアーカイブしました');
    } catch (error) {
      onError(error);
    }
  };

  return (
    <Stack gap="md">
      <PrintStyle extra="[data-alert-page] .mantine-Table-thead { position: static !important; }" />
      <Group justify="space-between" align="flex-start" data-print-hide>
        <ButtonLink
          to="/alerts"
          search={{ page: 1, status: alert.is_archived ? 'archived' : 'open' }}
          variant="default"
        >
          アラート一覧へ戻る
        </ButtonLink>
        <Group gap="xs">
          <CsvExportButton testId="alert-export" download={(encoding) => downloadAlertCsv(api, alert, encoding)} />
          <Button variant="default" onClick={() => window.print()}>
            印刷
          </Button>
          {!alert.is_archived && (
            <Button loading={archive.isPending} onClick={() => void archiveAlert()}>
              アーカイブ
            </Button>
          )}
        </Group>
      </Group>
      <Stack gap={4} data-alert-page>
        <Group gap="xs">
          <Title order={2} size="h3">
            {alert.name}
          </Title>
          {alert.is_archived && <Badge color="gray">アーカイブ済み</Badge>}
        </Group>
        <Text c="dimmed">{alert.condition_summary}</Text>
        <Text size="sm">
          {alertMonthLabel(alert.alert_date)}・対象{' '}
          <strong data-testid="alert-target-count">{alert.target_count}</strong>件
        </Text>
      </Stack>
      <Paper withBorder p="sm">
        {alert.target_count === 0 ? (
          // Resolved: an open alert whose institutions all dropped out on a re-evaluation.
          <Text c="dimmed" size="sm">
            この月の再集計で条件に合う医療機関はなくなりました。
          </Text>
        ) : list.data.length === 0 ? (
          // A page past the last (an old link, a re-evaluation with fewer institutions): they are on page 1.
          <Stack align="center" py="xl" gap="xs" data-testid="alert-page-past-end">
            <Text c="dimmed" size="sm">
              このページには医療機関がありません（全{list.meta.total_pages}ページ）。
            </Text>
            <Button variant="light" onClick={() => onParamsChange({ page: 1 })}>
              1ページ目へ
            </Button>
          </Stack>
        ) : (
          <Table.ScrollContainer minWidth={760}>
            <Table verticalSpacing="xs" data-testid="alert-institutions">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>医療機関名</Table.Th>
                  <Table.Th>住所</Table.Th>
                  <Table.Th style={noWrap} ta="right">
                    紹介数
                  </Table.Th>
                  <Table.Th style={noWrap} ta="right">
                    前月紹介数
                  </Table.Th>
                  <Table.Th style={noWrap} ta="right">
                    増減率
                  </Table.Th>
                  <Table.Th style={noWrap}>最終訪問日</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {list.data.map((row) => (
                  <Table.Tr key={row.id}>
                    <Table.Td>
                      <AnchorLink to="/crms/$id" params={{ id: row.id }} size="sm">
                        {row.name || '（名称不明）'}
                      </AnchorLink>
                    </Table.Td>
                    <Table.Td>
                      <Text size="sm">{row.address}</Text>
                    </Table.Td>
                    <Table.Td ta="right">{row.referral_count ?? '—'}</Table.Td>
                    <Table.Td ta="right">{row.comparison_referral_count ?? '—'}</Table.Td>
                    <Table.Td ta="right" style={noWrap}>
                      {formatFraction(row.rate_of_referral_change, { signed: true })}
                    </Table.Td>
                    <Table.Td style={noWrap}>{row.last_visit_date?.replaceAll('-', '/') ?? '訪問なし'}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        )}
      </Paper>
      <Group data-print-hide>
        <ListPagination
          totalPages={list.meta.total_pages}
          value={list.meta.page}
          onChange={(page) => onParamsChange({ page })}
          aria-label="ページ"
        />
      </Group>
    </Stack>
  );
}
