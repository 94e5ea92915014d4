import { Button, Group, Paper, Stack, Text, Title } from '@mantine/core';
import { useSuspenseQuery } from '@tanstack/react-query';
import type { ActionList } from '@renkei/contracts';
import { lazy, Suspense } from 'react';
import { useServices } from '../../../app/services-context.tsx';
import { toast } from '../../../app/toast.ts';
import { useMutationErrorHandler } from '../../../errors/useMutationErrorHandler.ts';
import { LazyConfirmDeleteModal as ConfirmDeleteModal } from '../../../ui/lazy-dialogs.ts';
import { ListPagination, type ListPageProps } from '../../../ui/ListPagination.tsx';
import { useRecordDialogs } from '../../../ui/useRecordDialogs.ts';
import { ButtonLink } from '../../medical-institutions/components/router-links.tsx';
import { emptySearchState } from '../../medical-institutions/search-state.ts';
import {
  actionListItemsPerPage,
  actionListQueries,
  actionListsPerPage,
  actionListStatusLabels,
  useChangeActionListStatus,
  useCreateActionList,
  useDeleteActionList,
  useRenameActionList,
  type ActionListsParams,
} from '../action-lists.queries.ts';
import { ActionListItemsPanel } from './ActionListItemsPanel.tsx';
import { ActionListTable } from './ActionListTable.tsx';

// The dialog (and its inputs) loads when first opened, not with the list.
const ActionListFormModal = lazy(() =>
  import('./ActionListFormModal.tsx').then((m) => ({ default: m.ActionListFormModal })),
);

// The frame and the controls have no place on paper: the selected list's current page prints whole.
const printStyle = `
@media print {
  .mantine-AppShell-header, .mantine-AppShell-navbar, .mantine-AppShell-footer, [data-print-hide] { display: none !important; }
  .mantine-AppShell-main { padding: 0 !important; min-height: 0 !important; }
  [data-action-lists-page] [data-testid="action-list-table"] { display: none; }
  body { background: #fff !important; }
}`;

/** The list of the URL, read by id: it may be on another page of the lists, or gone. */
function SelectedActionList({ id, params, onParamsChange }: { id: string } & ListPageProps<ActionListsParams>) {
  const { api } = useServices();
  const { data: list } = useSuspenseQuery(actionListQueries.detail(api, id));
  if (list === null) {
    return (
      <Text size="sm" c="dimmed" data-testid="action-list-missing">
        選択したアクションリストは見つかりません。削除された可能性があります。一覧から別のリストを選んでください。
      </Text>
    );
  }
  return (
    <ActionListItemsPanel
      list={list}
      params={{ page: params.item_page, per_page: actionListItemsPerPage, status: params.status }}
      onParamsChange={onParamsChange}
    />
  );
}

export function ActionListsPage({ params, onParamsChange }: ListPageProps<ActionListsParams>) {
  const { api } = useServices();
  const { data: lists } = useSuspenseQuery(
    actionListQueries.lists(api, { page: params.page, per_page: actionListsPerPage }),
  );
  const onError = useMutationErrorHandler();
  const deleteList = useDeleteActionList();
  const changeStatus = useChangeActionListStatus();
  const { editing, setEditing, deleting, setDeleting, save, confirmDelete } = useRecordDialogs<
    ActionList,
    { name: string }
  >({
    create: useCreateActionList(),
    update: useRenameActionList(),
    remove: deleteList,
    messages: {
      created: 'アクションリストを作成しました',
      updated: 'アクションリスト名を変更しました',
      deleted: 'アクションリストを削除しました',
    },
    onError,
  });

  const toggleStatus = async (list: ActionList) => {
    const status = list.status === 'completed' ? 'in_progress' : 'completed';
    try {
      await changeStatus.mutateAsync({ id: list.id, version: list.version, status });
      toast.success(`「${list.name}」を${actionListStatusLabels[status]}にしました`);
    } catch (error) {
      onError(error);
    }
  };

  return (
    <Stack gap="lg" data-action-lists-page>
      <style>{printStyle}</style>
      <Group justify="space-between" data-print-hide>
        <Title order={2} fz="xl">
          アクションリスト
        </Title>
        <Button onClick={() => setEditing({ record: null })}>新規作成</Button>
      </Group>
      {lists.meta.total_count === 0 ? (
        <Paper withBorder p="xl" data-testid="action-lists-empty">
          <Stack gap="xs" align="center">
            <Text fw={600}>アクションリストはまだありません</Text>
            <Text size="sm" c="dimmed" ta="center">
              訪問や挨拶状の送付先など、まとめて対応したい医療機関をリストにして進み具合を管理できます。
              <br />
              「新規作成」でリストを作るか、パートナー検索で絞り込んだ結果から「アクションリストに追加」で作成してください。
            </Text>
            <Group gap="xs">
              <Button size="xs" onClick={() => setEditing({ record: null })}>
                新規作成
              </Button>
              <ButtonLink to="/medical_institutions_search" search={emptySearchState} size="xs" variant="light">
                パートナー検索を開く
              </ButtonLink>
            </Group>
          </Stack>
        </Paper>
      ) : (
        <Stack gap="xs">
          <Text size="sm" c="dimmed" data-testid="action-list-total" data-print-hide>
            全{lists.meta.total_count}件{!params.id && '（リスト名を選ぶと医療機関が表示されます）'}
          </Text>
          <ActionListTable
            lists={lists.data}
            selectedId={params.id}
            onSelect={(l) => onParamsChange({ id: l.id, item_page: 1, status: 'all' })}
            onRename={(l) => setEditing({ record: l })}
            onDelete={(l) => setDeleting(l)}
            onToggleStatus={(l) => void toggleStatus(l)}
          />
          <ListPagination
            totalPages={lists.meta.total_pages}
            value={lists.meta.page}
            onChange={(page) => onParamsChange({ page })}
            aria-label="ページ"
            data-print-hide
          />
        </Stack>
      )}
      {params.id && (
        <SelectedActionList key={params.id} id={params.id} params={params} onParamsChange={onParamsChange} />
      )}
      <Suspense fallback={null}>
        {editing && (
          <ActionListFormModal
            opened
            actionList={editing.record}
            onClose={() => setEditing(null)}
            onSubmit={(values) => save({ name: values.name })}
          />
        )}
        {deleting && (
          <ConfirmDeleteModal
            opened
            title="アクションリストを削除"
            message={<>アクションリスト「{deleting.name}」を削除しますか？</>}
            detail={
              deleting.medical_institution_count > 0 &&
              `リストに入っている${deleting.medical_institution_count}件の医療機関と対応状況も消えます（医療機関そのものは削除されません）。`
            }
            confirmLabel="削除する"
            pending={deleteList.isPending}
            onClose={() => setDeleting(null)}
            onConfirm={() => void confirmDelete()}
          />
        )}
      </Suspense>
    </Stack>
  );
}
