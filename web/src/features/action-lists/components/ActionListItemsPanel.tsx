import { Badge, Button, Checkbox, Group, Paper, SegmentedControl, Select, Stack, Text, Title } from '@mantine/core';
import { useSuspenseQuery } from '@tanstack/react-query';
import { endpoints, type ActionList, type ActionListItemStatus } from '@renkei/contracts';
import { startTransition, useState } from 'react';
import { fieldErrorsOf, isApiError } from '../../../api/api-errors.ts';
import { formatDate, formatDateTime } from '../../../app/dates.ts';
import { useServices } from '../../../app/services-context.tsx';
import { toast } from '../../../app/toast.ts';
import { useMutationErrorHandler } from '../../../errors/useMutationErrorHandler.ts';
import { ConfirmDeleteModal } from '../../../ui/ConfirmDeleteModal.tsx';
import { CsvExportButton } from '../../../ui/CsvExportButton.tsx';
import { InstitutionPicker, type PickedInstitution } from '../../../ui/InstitutionPicker.tsx';
import { ListPagination } from '../../../ui/ListPagination.tsx';
import { downloadFile } from '../../imports/file-transfer.ts';
import { RunningStatusBadge } from '../../medical-institutions/components/RunningStatusBadge.tsx';
import { AnchorLink, ButtonLink } from '../../medical-institutions/components/router-links.tsx';
import { formatRate } from '../../medical-institutions/labels-ja.ts';
import {
  emptySearchState,
  referralSpanLabels,
  referralSpans,
  type ReferralSpan,
} from '../../medical-institutions/search-state.ts';
import {
  actionListQueries,
  itemsQueryOf,
  itemStatusColors,
  itemStatusLabels,
  useAddActionListItem,
  useBulkDeleteActionListItems,
  useChangeItemsStatus,
  type ActionListItemFilter,
  type ActionListItemsParams,
} from '../action-lists.queries.ts';

const slashed = (day: string) => day.replaceAll('-', '/');

const filters: { value: ActionListItemFilter; label: string }[] = [
  { value: 'all', label: 'すべて' },
  { value: 'actioned', label: '対応済み' },
  { value: 'not_actioned', label: '未対応' },
];

/** The institutions of the selected list: filter, pick to add, mark or remove the checked ones, CSV, print. */
export function ActionListItemsPanel({
  list,
  params,
  onParamsChange,
}: {
  list: ActionList;
  params: ActionListItemsParams;
  onParamsChange: (next: { status?: ActionListItemFilter; item_page?: number }) => void;
}) {
  const services = useServices();
  // The figures' period is a way of reading the list, not part of its address: kept while the page is open.
  const [referralSpan, setReferralSpan] = useState<ReferralSpan | undefined>(undefined);
  const itemParams = { ...params, referral_span: referralSpan };
  const { data: items } = useSuspenseQuery(actionListQueries.items(services.api, list.id, itemParams));
  const periods = itemsQueryOf(itemParams);
  const onError = useMutationErrorHandler();
  const addItem = useAddActionListItem();
  const changeStatus = useChangeItemsStatus();
  const removeItems = useBulkDeleteActionListItems();
  const [checked, setChecked] = useState<ReadonlySet<string>>(new Set());
  const [picked, setPicked] = useState<PickedInstitution | null>(null);
  const [pickError, setPickError] = useState<string | undefined>();
  const [confirmingRemove, setConfirmingRemove] = useState(false);

  const pageIds = items.data.map((i) => i.medical_institution.id);
  // Only rows on screen count: a row that left the page (another filter, another page) is not acted on.
  const selected = pageIds.filter((id) => checked.has(id));
  const allChecked = pageIds.length > 0 && selected.length === pageIds.length;
  const toggle = (id: string) =>
    setChecked((prev) => {
      const next = new Set(prev);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });

  const mark = async (ids: string[], status: ActionListItemStatus) => {
    try {
      const { count } = await changeStatus.mutateAsync({ id: list.id, institutionIds: ids, status });
      toast.success(count > 0 ? `${count}件を${itemStatusLabels[status]}にしました` : '変更はありませんでした');
      setChecked(new Set());
    } catch (error) {
      onError(error);
    }
  };

  const remove = async () => {
    try {
      const { count } = await removeItems.mutateAsync({ id: list.id, institutionIds: selected });
      toast.success(`${count}件をリストから外しました`);
      setChecked(new Set());
    } catch (error) {
      onError(error);
    } finally {
      setConfirmingRemove(false);
    }
  };

  const add = async () => {
    if (!picked) {
      setPickError('医療機関を選択してください');
      return;
    }
    try {
      await addItem.mutateAsync({ id: list.id, institutionId: picked.id });
      toast.success(`${picked.name}を追加しました`);
      setPicked(null);
      setPickError(undefined);
    } catch (error) {
      const fields = fieldErrorsOf(error);
      if (isApiError(error) && error.status === 422) setPickError(fields.medical_institution_id ?? error.message);
      else onError(error);
    }
  };

  const busy = changeStatus.isPending || removeItems.isPending;
  const emptyList = items.meta.total_count === 0 && params.status === 'all';

  return (
    <Paper withBorder p="md" data-testid="action-list-items">
      <Stack gap="sm">
        <Group justify="space-between" align="flex-start">
          <Stack gap={0}>
            <Title order={3} fz="lg">
              {list.name}
            </Title>
            <Text size="sm" c="dimmed" data-testid="action-list-items-summary">
              {list.medical_institution_count}件中 {list.actioned_count}件 対応済み
            </Text>
          </Stack>
          <Group gap="xs" data-print-hide>
            <CsvExportButton
              size="xs"
              testId="action-list-export"
              download={(encoding) =>
                downloadFile(
                  services,
                  // The download helper fills no path parameters: the path is this list's.
                  {
                    ...endpoints.exportItems,
                    path: `/action_lists/${encodeURIComponent(list.id)}/medical_institutions/export`,
                  },
                  {
                    query: {
                      status: params.status,
                      encoding,
                      referral_period: { ...periods.referral_period },
                      comparison_referral_period: { ...periods.comparison_referral_period },
                    },
                    fallbackName: `${list.name}.csv`,
                  },
                )
              }
            />
            <Button size="xs" variant="default" onClick={() => window.print()}>
              印刷
            </Button>
          </Group>
        </Group>

        <Group align="flex-end" gap="xs" data-print-hide>
          <div style={{ flex: 1, maxWidth: 420 }}>
            <InstitutionPicker
              value={picked}
              onChange={(v) => {
                setPicked(v);
                setPickError(undefined);
              }}
              error={pickError}
              size="xs"
            />
          </div>
          <Button size="xs" onClick={() => void add()} loading={addItem.isPending} disabled={!picked}>
            リストに追加
          </Button>
        </Group>

        {emptyList ? (
          <Stack gap="xs" align="center" py="lg" data-testid="action-list-items-empty">
            <Text fw={600}>このリストにはまだ医療機関がありません</Text>
            <Text size="sm" c="dimmed" ta="center">
              上の欄に医療機関名を入力して追加するか、パートナー検索で絞り込んだ結果を「アクションリストに追加」でまとめて追加できます。
            </Text>
            <ButtonLink to="/medical_institutions_search" search={emptySearchState} variant="light" size="xs">
              パートナー検索を開く
            </ButtonLink>
          </Stack>
        ) : (
          <>
            <Group justify="space-between" data-print-hide>
              <Group gap="xs">
                <SegmentedControl
                  size="xs"
                  aria-label="対応状況で絞り込み"
                  data={filters}
                  value={params.status}
                  onChange={(value) => {
                    setChecked(new Set());
                    onParamsChange({ status: value as ActionListItemFilter, item_page: 1 });
                  }}
                />
                <Select
                  size="xs"
                  w={150}
                  aria-label="紹介数の期間"
                  data={referralSpans.map((v) => ({ value: v, label: `紹介数: ${referralSpanLabels[v]}` }))}
                  value={referralSpan ?? 'fiscal_year'}
                  // A transition: the table stays on screen while the other span's figures load.
                  onChange={(v) =>
                    v && startTransition(() => setReferralSpan(v === 'fiscal_year' ? undefined : (v as ReferralSpan)))
                  }
                  allowDeselect={false}
                  data-testid="action-list-referral-span"
                />
              </Group>
              <Group gap="xs">
                <Text size="sm" c="dimmed">
                  {selected.length > 0 ? `${selected.length}件を選択中` : `${items.meta.total_count}件`}
                </Text>
                <Button
                  size="xs"
                  disabled={selected.length === 0}
                  loading={changeStatus.isPending && changeStatus.variables?.status === 'actioned'}
                  onClick={() => void mark(selected, 'actioned')}
                >
                  対応済みにする
                </Button>
                <Button
                  size="xs"
                  variant="default"
                  disabled={selected.length === 0 || busy}
                  onClick={() => void mark(selected, 'not_actioned')}
                >
                  未対応に戻す
                </Button>
                <Button
                  size="xs"
                  variant="light"
                  color="red"
                  disabled={selected.length === 0 || busy}
                  onClick={() => setConfirmingRemove(true)}
                >
                  リストから外す
                </Button>
              </Group>
            </Group>
            <Text size="xs" c="dimmed" data-testid="action-list-referral-periods">
              紹介数は {slashed(periods.referral_period.from)}〜{slashed(periods.referral_period.to)}、比較期間は{' '}
              {slashed(periods.comparison_referral_period.from)}〜{slashed(periods.comparison_referral_period.to)}
              （前年同期）の件数です。
            </Text>
            {items.data.length === 0 ? (
              <Text c="dimmed" py="lg" ta="center">
                条件に合う医療機関はありません。
              </Text>
            ) : (
              <div style={{ overflowX: 'auto' }}>
                <table className="renkei-table" data-testid="action-list-item-table">
                  <thead>
                    <tr style={{ whiteSpace: 'nowrap' }}>
                      <th data-print-hide>
                        <Checkbox
                          aria-label="このページの医療機関をすべて選択"
                          checked={allChecked}
                          indeterminate={selected.length > 0 && !allChecked}
                          onChange={() => setChecked(allChecked ? new Set() : new Set(pageIds))}
                        />
                      </th>
                      <th>医療機関名</th>
                      <th>住所</th>
                      <th>電話番号</th>
                      <th>運営状況</th>
                      <th>紹介数</th>
                      <th>比較期間の紹介数</th>
                      <th>紹介増減率</th>
                      <th>最終訪問日</th>
                      <th>対応状況</th>
                      <th>更新者</th>
                      <th>更新日時</th>
                      <th data-print-hide>操作</th>
                    </tr>
                  </thead>
                  <tbody>
                    {items.data.map((item) => {
                      const mi = item.medical_institution;
                      const next: ActionListItemStatus = item.status === 'actioned' ? 'not_actioned' : 'actioned';
                      return (
                        <tr key={mi.id} data-testid="action-list-item-row">
                          <td data-print-hide>
                            <Checkbox
                              aria-label={`${mi.name}を選択`}
                              checked={checked.has(mi.id)}
                              onChange={() => toggle(mi.id)}
                            />
                          </td>
                          {/* Widths that keep a name and an address readable: the figures' columns made the
                              table squeeze them to a few characters a line; it scrolls sideways instead. */}
                          <td style={{ minWidth: 160 }}>
                            <AnchorLink to="/crms/$id" params={{ id: mi.id }} size="sm" fw={600}>
                              {mi.name}
                            </AnchorLink>
                          </td>
                          <td style={{ minWidth: 220 }} data-column="address">
                            {mi.address}
                          </td>
                          <td style={{ whiteSpace: 'nowrap' }}>{mi.tel ?? ''}</td>
                          <td>
                            <RunningStatusBadge status={mi.running_status} />
                          </td>
                          <td style={{ textAlign: 'right' }} data-column="referral_count">
                            {mi.referral_count ?? ''}
                          </td>
                          <td style={{ textAlign: 'right' }} data-column="comparison_referral_count">
                            {mi.comparison_referral_count ?? ''}
                          </td>
                          <td
                            style={{ textAlign: 'right', whiteSpace: 'nowrap' }}
                            data-column="rate_of_referral_change"
                          >
                            {formatRate(mi.rate_of_referral_change ?? null)}
                          </td>
                          <td style={{ whiteSpace: 'nowrap' }} data-column="last_visit_date">
                            {formatDate(mi.last_visit_date ?? null)}
                          </td>
                          <td>
                            <Badge variant="light" color={itemStatusColors[item.status]} data-testid="item-status">
                              {itemStatusLabels[item.status]}
                            </Badge>
                          </td>
                          <td style={{ whiteSpace: 'nowrap' }}>{item.updated_by?.name ?? ''}</td>
                          <td style={{ whiteSpace: 'nowrap' }}>{formatDateTime(item.updated_at)}</td>
                          <td data-print-hide>
                            <Button
                              size="compact-xs"
                              variant="subtle"
                              disabled={busy}
                              onClick={() => void mark([mi.id], next)}
                              aria-label={`${mi.name}を${itemStatusLabels[next]}にする`}
                            >
                              {next === 'actioned' ? '対応済みにする' : '未対応に戻す'}
                            </Button>
                          </td>
                        </tr>
                      );
                    })}
                  </tbody>
                </table>
              </div>
            )}
            <ListPagination
              totalPages={items.meta.total_pages}
              value={items.meta.page}
              onChange={(page) => {
                setChecked(new Set());
                onParamsChange({ item_page: page });
              }}
              aria-label="医療機関のページ"
              data-print-hide
            />
          </>
        )}
      </Stack>
      <ConfirmDeleteModal
        opened={confirmingRemove}
        title="リストから外す"
        message={
          <>
            選択した{selected.length}件の医療機関をアクションリスト「{list.name}」から外しますか？
          </>
        }
        detail="医療機関そのものや活動記録は削除されません。"
        confirmLabel="外す"
        pending={removeItems.isPending}
        onClose={() => setConfirmingRemove(false)}
        onConfirm={() => void remove()}
      />
    </Paper>
  );
}
