import { Button, Group, Stack, Table, Text, Title } from '@mantine/core';
import type { Dashboard } from '@renkei/contracts';
import { useSuspenseQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { formatDateTime } from '../../../app/dates.ts';
import { useServices } from '../../../app/services-context.tsx';
import { toast } from '../../../app/toast.ts';
import { useMutationErrorHandler } from '../../../errors/useMutationErrorHandler.ts';
import { ConfirmDeleteModal } from '../../../ui/ConfirmDeleteModal.tsx';
import { ListPagination, type ListPageProps } from '../../../ui/ListPagination.tsx';
import { AnchorLink, ButtonLink } from '../../medical-institutions/components/router-links.tsx';
import { dashboardQueries, useDeleteDashboard } from '../dashboards.queries.ts';

export interface DashboardsParams {
  page: number;
}

const noWrap = { whiteSpace: 'nowrap' } as const;

/** `/dashboards`: the tenant's dashboards, newest first, to open, edit or delete. */
export function DashboardsPage({ params, onParamsChange }: ListPageProps<DashboardsParams>) {
  const { api } = useServices();
  const { data: list } = useSuspenseQuery(dashboardQueries.list(api, params));
  const remove = useDeleteDashboard();
  const onError = useMutationErrorHandler();
  const [deleting, setDeleting] = useState<Dashboard | null>(null);

  return (
    <Stack gap="md">
      <Group justify="space-between">
        <Title order={2}>ダッシュボード</Title>
        <ButtonLink to="/dashboards/new">新規作成</ButtonLink>
      </Group>
      {list.data.length === 0 ? (
        <Text c="dimmed" data-testid="dashboards-empty">
          ダッシュボードはまだありません。「新規作成」からレポートを並べたダッシュボードを作成できます。
        </Text>
      ) : (
        <Table.ScrollContainer minWidth={640}>
          <Table verticalSpacing="xs" data-testid="dashboards-table">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>ダッシュボード名</Table.Th>
                <Table.Th style={noWrap}>レポート数</Table.Th>
                <Table.Th style={noWrap}>作成者</Table.Th>
                <Table.Th style={noWrap}>更新日時</Table.Th>
                <Table.Th />
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {list.data.map((d) => (
                <Table.Tr key={d.id} data-testid="dashboard-row">
                  <Table.Td>
                    <AnchorLink to="/dashboards/$id" params={{ id: d.id }} size="sm">
                      {d.name}
                    </AnchorLink>
                  </Table.Td>
                  <Table.Td style={noWrap}>{d.contents.length}件</Table.Td>
                  <Table.Td style={noWrap}>{d.created_by?.name ?? '—'}</Table.Td>
                  <Table.Td style={noWrap}>{formatDateTime(d.updated_at)}</Table.Td>
                  <Table.Td>
                    <Group gap="xs" wrap="nowrap" justify="flex-end">
                      <ButtonLink
                        to="/dashboards/$id/edit"
                        params={{ id: d.id }}
                        size="xs"
                        variant="light"
                        aria-label={`${d.name}を編集`}
                      >
                        編集
                      </ButtonLink>
                      <Button
                        size="xs"
                        variant="light"
                        color="red"
                        aria-label={`${d.name}を削除`}
                        onClick={() => setDeleting(d)}
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
      )}
      <ListPagination
        totalPages={list.meta.total_pages}
        value={list.meta.page}
        onChange={(page) => onParamsChange({ page })}
        aria-label="ページ"
      />
      <ConfirmDeleteModal
        opened={deleting !== null}
        title="ダッシュボードの削除"
        message={`「${deleting?.name ?? ''}」を削除しますか？`}
        detail="並べたレポートは削除されません。"
        confirmLabel="削除する"
        pending={remove.isPending}
        onClose={() => setDeleting(null)}
        onConfirm={() => {
          if (!deleting) return;
          remove.mutateAsync({ id: deleting.id, version: deleting.version }).then(
            () => {
              toast.success('ダッシュボードを削除しました');
              setDeleting(null);
            },
            (error: unknown) => {
              setDeleting(null);
              onError(error);
            },
          );
        }}
      />
    </Stack>
  );
}
