import { Button, Checkbox, Group, Stack, Table, Tabs, Text, Title } from '@mantine/core';
import { useSuspenseQuery } from '@tanstack/react-query';
import type { Alert } from '@renkei/contracts';
import { useState } from 'react';
import { useServices } from '../../../app/services-context.tsx';
import { toast } from '../../../app/toast.ts';
import { useMutationErrorHandler } from '../../../errors/useMutationErrorHandler.ts';
import { ListPagination, type ListPageProps } from '../../../ui/ListPagination.tsx';
import { noWrap } from '../../../ui/table-styles.ts';
import { AnchorLink, ButtonLink } from '../../medical-institutions/components/router-links.tsx';
import {
  alertMonthLabel,
  alertQueries,
  useArchiveAlert,
  useBulkArchiveAlerts,
  type AlertListParams,
  type AlertStatus,
} from '../alerts.queries.ts';

export interface AlertsParams {
  page: number;
  status: AlertStatus;
}

export const alertListQueryOf = (p: AlertsParams): AlertListParams => ({
  page: p.page,
  per_page: 20,
  status: p.status,
});

/** The alerts of the tenant, open or archived: each one condition's institutions for one month. */
export function AlertsPage({ params, onParamsChange }: ListPageProps<AlertsParams>) {
  const { api } = useServices();
  const { data: list } = useSuspenseQuery(alertQueries.list(api, alertListQueryOf(params)));
  const archive = useArchiveAlert();
  const bulkArchive = useBulkArchiveAlerts();
  const onError = useMutationErrorHandler();
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const open = params.status === 'open';
  const shown = list.data.filter((a) => selected.has(a.id));
  const allSelected = list.data.length > 0 && shown.length === list.data.length;

  const toggle = (id: string, on: boolean) =>
    setSelected((prev) => {
      const next = new Set(prev);
      if (on) next.add(id);
      else next.delete(id);
      return next;
    });

  const archiveOne = async (alert: Alert) => {
    try {
      await archive.mutateAsync(alert.id);
      toggle(alert.id, false);
      toast.success(`「${alert.name}」をアーカイブしました`);
    } catch (error) {
      onError(error);
    }
  };

  const archiveSelected = async () => {
    try {
      const { count } = await bulkArchive.mutateAsync(shown.map((a) => a.id));
      setSelected(new Set());
      toast.success(`${count}件のアラートをアーカイブしました`);
    } catch (error) {
      onError(error);
    }
  };

  return (
    <Stack gap="md">
      <Group justify="space-between">
        <Title order={2} size="h3">
          アラート
        </Title>
        <ButtonLink to="/alert_conditions" search={{ page: 1 }} variant="default">
          アラート条件
        </ButtonLink>
      </Group>
      <Tabs
        value={params.status}
        onChange={(v) => {
          setSelected(new Set());
          onParamsChange({ status: v === 'archived' ? 'archived' : 'open', page: 1 });
        }}
      >
        <Tabs.List>
          <Tabs.Tab value="open">未対応</Tabs.Tab>
          <Tabs.Tab value="archived">アーカイブ</Tabs.Tab>
        </Tabs.List>
      </Tabs>
      {list.data.length === 0 ? (
        <Stack gap="xs" data-testid="alerts-empty">
          {open ? (
            <>
              <Text c="dimmed">未対応のアラートはありません。</Text>
              <Text c="dimmed" size="sm">
                アラート条件を作成すると、条件に合う医療機関（紹介が減った紹介元、しばらく訪問していない紹介元など）が
                毎月ここに表示されます。条件は作成した直後にも前月分で集計されます。
              </Text>
              <Group>
                <ButtonLink to="/alert_conditions" search={{ page: 1 }} variant="light">
                  アラート条件を見る
                </ButtonLink>
              </Group>
            </>
          ) : (
            <Text c="dimmed">
              アーカイブしたアラートはありません。対応済みのアラートは「未対応」タブからアーカイブできます。
            </Text>
          )}
        </Stack>
      ) : (
        <>
          {open && (
            <Group gap="xs">
              <Button
                variant="default"
                disabled={shown.length === 0}
                loading={bulkArchive.isPending}
                onClick={() => void archiveSelected()}
              >
                選択したアラートをアーカイブ{shown.length > 0 ? `（${shown.length}件）` : ''}
              </Button>
              <Text size="sm" c="dimmed">
                全{list.meta.total_count}件
              </Text>
            </Group>
          )}
          <Table.ScrollContainer minWidth={720}>
            <Table verticalSpacing="sm" data-testid="alerts-table">
              <Table.Thead>
                <Table.Tr>
                  {open && (
                    <Table.Th w={40}>
                      <Checkbox
                        aria-label="すべて選択"
                        checked={allSelected}
                        indeterminate={shown.length > 0 && !allSelected}
                        onChange={(e) =>
                          setSelected(new Set(e.currentTarget.checked ? list.data.map((a) => a.id) : []))
                        }
                      />
                    </Table.Th>
                  )}
                  <Table.Th>アラート</Table.Th>
                  <Table.Th style={noWrap}>対象</Table.Th>
                  <Table.Th style={noWrap}>対象月</Table.Th>
                  {open && <Table.Th />}
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {list.data.map((alert) => (
                  <Table.Tr key={alert.id}>
                    {open && (
                      <Table.Td>
                        <Checkbox
                          aria-label={`「${alert.name}」を選択`}
                          checked={selected.has(alert.id)}
                          onChange={(e) => toggle(alert.id, e.currentTarget.checked)}
                        />
                      </Table.Td>
                    )}
                    <Table.Td>
                      <AnchorLink to="/alerts/$id" params={{ id: alert.id }} search={{ page: 1 }} fw={500}>
                        {alert.name}
                      </AnchorLink>
                      <Text size="sm" c="dimmed">
                        {alert.condition_summary}
                      </Text>
                    </Table.Td>
                    <Table.Td style={noWrap}>対象 {alert.target_count}件</Table.Td>
                    <Table.Td style={noWrap}>{alertMonthLabel(alert.alert_date)}</Table.Td>
                    {open && (
                      <Table.Td style={noWrap}>
                        <Button
                          size="compact-sm"
                          variant="subtle"
                          aria-label={`「${alert.name}」をアーカイブ`}
                          onClick={() => void archiveOne(alert)}
                        >
                          アーカイブ
                        </Button>
                      </Table.Td>
                    )}
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        </>
      )}
      <ListPagination
        totalPages={list.meta.total_pages}
        value={list.meta.page}
        onChange={(page) => onParamsChange({ page })}
        aria-label="ページ"
      />
    </Stack>
  );
}
