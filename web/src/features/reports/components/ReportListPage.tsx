import { Badge, Button, Group, Paper, SegmentedControl, Stack, Table, Text, Title } from '@mantine/core';
import type { ReportDefinition, ReportKind } from '@renkei/contracts';
import { useSuspenseQuery } from '@tanstack/react-query';
import { Suspense, useState } from 'react';
import { formatDateTime } from '../../../app/dates.ts';
import { useServices } from '../../../app/services-context.tsx';
import { toast } from '../../../app/toast.ts';
import { useMutationErrorHandler } from '../../../errors/useMutationErrorHandler.ts';
import { LazyConfirmDeleteModal as ConfirmDeleteModal } from '../../../ui/lazy-dialogs.ts';
import { ListPagination, type ListPageProps } from '../../../ui/ListPagination.tsx';
import { noWrap } from '../../../ui/table-styles.ts';
import { AnchorLink, ButtonLink } from '../../medical-institutions/components/router-links.tsx';
import { periodLabel } from '../report-labels.ts';
import { reportKinds } from '../report-kinds.ts';
import { detailSearch, reportQueries, useDeleteReport, type ReportListParams } from '../reports.queries.ts';

/** The saved reports of one kind: open, create, edit or delete them. */
export function ReportListPage({
  kind,
  params,
  onParamsChange,
}: { kind: ReportKind } & ListPageProps<ReportListParams>) {
  const info = reportKinds[kind];
  const { api } = useServices();
  const { data: list } = useSuspenseQuery(reportQueries.list(api, kind, params));
  const remove = useDeleteReport(kind);
  const onError = useMutationErrorHandler();
  const [deleting, setDeleting] = useState<ReportDefinition | null>(null);

  const confirmDelete = async () => {
    if (!deleting) return;
    try {
      await remove.mutateAsync({ id: deleting.id, version: deleting.version });
      toast.success('レポートを削除しました');
    } catch (error) {
      onError(error);
    } finally {
      setDeleting(null);
    }
  };

  return (
    <Stack gap="lg">
      <Group justify="space-between">
        <Title order={2} fz="xl">
          {info.title}
        </Title>
        <ButtonLink to={`${info.route}/new`} data-testid="report-new">
          新規作成
        </ButtonLink>
      </Group>
      {list.meta.total_count === 0 ? (
        <Paper withBorder p="xl" data-testid="reports-empty">
          <Stack gap="xs" align="center">
            <Text fw={600}>{info.title}はまだありません</Text>
            <Text size="sm" c="dimmed" ta="center">
              「新規作成」で表示する項目・期間・絞り込み条件を選んで保存すると、ここからいつでも最新の集計を開けます。
            </Text>
            <ButtonLink to={`${info.route}/new`} size="xs">
              新規作成
            </ButtonLink>
          </Stack>
        </Paper>
      ) : (
        <Stack gap="xs">
          <Group justify="space-between">
            <Text size="sm" c="dimmed" data-testid="reports-total">
              全{list.meta.total_count}件
            </Text>
            {info.alerts && (
              <SegmentedControl
                size="xs"
                value={params.sort_by}
                onChange={(v) => onParamsChange({ sort_by: v as ReportListParams['sort_by'], page: 1 })}
                data={[
                  { value: 'create_date', label: '作成日順' },
                  { value: 'alert_date', label: 'アラート日順' },
                ]}
                aria-label="並び順"
              />
            )}
          </Group>
          <Table.ScrollContainer minWidth={760}>
            <Table verticalSpacing="xs" data-testid="reports-table">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>レポート名</Table.Th>
                  <Table.Th style={noWrap}>集計期間</Table.Th>
                  {info.alerts && <Table.Th style={noWrap}>アラート日</Table.Th>}
                  <Table.Th style={noWrap}>作成者</Table.Th>
                  <Table.Th style={noWrap}>更新日時</Table.Th>
                  <Table.Th />
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {list.data.map((r) => (
                  <Table.Tr key={r.id} data-testid="report-list-row">
                    <Table.Td>
                      <AnchorLink to={`${info.route}/$id`} params={{ id: r.id }} search={detailSearch} size="sm">
                        {r.name}
                      </AnchorLink>
                    </Table.Td>
                    <Table.Td style={noWrap}>{periodLabel(r.aggregation_settings)}</Table.Td>
                    {info.alerts && (
                      <Table.Td style={noWrap}>
                        {r.alert_date ? (
                          <Group gap={6} wrap="nowrap">
                            <Badge color="red" size="sm">
                              アラート
                            </Badge>
                            {r.alert_date.replaceAll('-', '/')}
                          </Group>
                        ) : (
                          <Text size="sm" c="dimmed">
                            —
                          </Text>
                        )}
                      </Table.Td>
                    )}
                    <Table.Td style={noWrap}>{r.created_by?.name ?? '—'}</Table.Td>
                    <Table.Td style={noWrap}>{formatDateTime(r.updated_at)}</Table.Td>
                    <Table.Td>
                      <Group gap="xs" wrap="nowrap" justify="flex-end">
                        <ButtonLink
                          to={`${info.route}/$id`}
                          params={{ id: r.id }}
                          search={{ ...detailSearch, mode: 'edit' }}
                          size="xs"
                          variant="light"
                          aria-label={`${r.name}を編集`}
                        >
                          編集
                        </ButtonLink>
                        <Button
                          size="xs"
                          variant="light"
                          color="red"
                          onClick={() => setDeleting(r)}
                          aria-label={`${r.name}を削除`}
                        >
                          削除
                        </Button>
                      </Group>
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
          <ListPagination
            totalPages={list.meta.total_pages}
            value={list.meta.page}
            onChange={(page) => onParamsChange({ page })}
            aria-label="ページ"
          />
        </Stack>
      )}
      <Suspense fallback={null}>
        {deleting && (
          <ConfirmDeleteModal
            opened
            title="レポートを削除"
            message={`「${deleting.name}」を削除しますか？`}
            detail={info.alerts ? 'このレポートのアラート設定も削除されます。' : undefined}
            confirmLabel="削除する"
            pending={remove.isPending}
            onClose={() => setDeleting(null)}
            onConfirm={() => void confirmDelete()}
            testId="report-delete-confirm"
          />
        )}
      </Suspense>
    </Stack>
  );
}
