import { Button, Group, Select, Stack, Text, TextInput, Title } from '@mantine/core';
import { useQuery, useSuspenseQuery } from '@tanstack/react-query';
import { businessDateRange, type VocListItem, type VocPriority, type VocStatus } from '@renkei/contracts';
import { lazy, Suspense, useRef, useState } from 'react';
import { useServices } from '../../../app/services-context.tsx';
import { toast } from '../../../app/toast.ts';
import { isApiError } from '../../../api/api-errors.ts';
import { useMutationErrorHandler } from '../../../errors/useMutationErrorHandler.ts';
import { useRecordDialogs } from '../../../ui/useRecordDialogs.ts';
import {
  useCreateVoc,
  useDeleteVoc,
  useReplaceVocGroups,
  useUpdateVoc,
  vocPriorityLabels,
  vocQueries,
  vocStatusLabels,
  type VocInputValues,
} from '../vocs.queries.ts';
import { VocExportButton } from './VocExportButton.tsx';
import { VocTable } from './VocTable.tsx';
import { institutionQueries } from '../../medical-institutions/medical-institutions.queries.ts';
import { TaskInstitutionSelect } from '../../tasks/components/TaskInstitutionSelect.tsx';
import { ListPagination, type ListPageProps } from '../../../ui/ListPagination.tsx';
import { PrintStyle } from '../../../ui/PrintStyle.tsx';
import { LazyConfirmDeleteModal as ConfirmDeleteModal } from '../../../ui/lazy-dialogs.ts';

// The dialogs (and their inputs) load when first opened, not with the list.
const VocFormModal = lazy(() => import('./VocFormModal.tsx').then((m) => ({ default: m.VocFormModal })));
const VocGroupsModal = lazy(() => import('./VocGroupsModal.tsx').then((m) => ({ default: m.VocGroupsModal })));

export interface VocsParams {
  page: number;
  status?: VocStatus | undefined;
  priority?: VocPriority | undefined;
  group?: string | undefined;
  /** VOCs linked to one communication (from its card). */
  communication?: string | undefined;
  /** VOCs of one institution (from its CRM page, or picked by name here). */
  institution?: string | undefined;
  /** Period of the reported date, both ends included. */
  from?: string | undefined;
  to?: string | undefined;
}

/** A period whose end comes before its start is not asked for (the API refuses it): said on the field. */
const periodInOrder = (p: VocsParams) => !p.from || !p.to || p.from <= p.to;
// A day outside the dates the API takes (a year being typed passes through 0002-04-01) is not asked for.
const searchable = (d: string | undefined) =>
  d !== undefined && d >= businessDateRange.from && d <= businessDateRange.to ? d : undefined;

/** What the list asks the API for, from the URL's filters (the loader uses the same). */
export const vocListQueryOf = (p: VocsParams) => ({
  page: p.page,
  per_page: 20,
  ...(p.status ? { status: p.status } : {}),
  ...(p.priority ? { priority: p.priority } : {}),
  ...(p.group ? { voc_group_id: p.group } : {}),
  ...(p.communication ? { communication_id: p.communication } : {}),
  ...(p.institution ? { medical_institution_id: p.institution } : {}),
  ...(periodInOrder(p) && searchable(p.from) ? { reported_from: p.from } : {}),
  ...(periodInOrder(p) && searchable(p.to) ? { reported_to: p.to } : {}),
});

const statusOptions = Object.entries(vocStatusLabels).map(([value, label]) => ({ value, label }));
const priorityOptions = Object.entries(vocPriorityLabels).map(([value, label]) => ({ value, label }));

/** Partner feedback: filters in the URL, create and edit in a dialog, groups managed in place (owners). */
export function VocsPage({
  params,
  isOwner,
  onParamsChange,
}: ListPageProps<VocsParams> & {
  isOwner: boolean;
}) {
  const { api } = useServices();
  const query = vocListQueryOf(params);
  const { data: list } = useSuspenseQuery(vocQueries.list(api, query));
  const { data: groups } = useSuspenseQuery(vocQueries.groups(api));
  // The picked institution's name for its filter (the URL has its id only).
  const picked = useQuery({
    ...institutionQueries.summary(api, params.institution ?? ''),
    enabled: !!params.institution,
    retry: false,
  });
  const deleteVoc = useDeleteVoc();
  const replaceGroups = useReplaceVocGroups();
  const onError = useMutationErrorHandler();
  const [editingGroups, setEditingGroups] = useState(false);
  const createVoc = useCreateVoc();
  // One Idempotency-Key per opened create dialog: a retry after a timeout never makes a second VOC.
  const createKey = useRef(crypto.randomUUID());
  const { editing, setEditing, deleting, setDeleting, save, confirmDelete } = useRecordDialogs<
    VocListItem,
    VocInputValues
  >({
    create: {
      mutateAsync: (body: VocInputValues) => createVoc.mutateAsync({ body, idempotencyKey: createKey.current }),
    },
    update: useUpdateVoc(),
    remove: deleteVoc,
    messages: { created: 'VOCを登録しました', updated: 'VOCを更新しました', deleted: 'VOCを削除しました' },
    onError,
  });

  const saveGroups = async (body: { id?: string; name: string }[]) => {
    try {
      await replaceGroups.mutateAsync({ body: { voc_groups: body }, shown: groups });
      toast.success('VOCグループを保存しました');
      setEditingGroups(false);
    } catch (error) {
      // A 422 (a group in use, a duplicate name) stays in the dialog; the rest closes it.
      if (!isApiError(error) || error.status !== 422) {
        setEditingGroups(false);
        onError(error);
      }
      throw error;
    }
  };

  return (
    <Stack gap="md">
      {/* On paper: the table without its 編集/削除 column, the page's buttons and page links. */}
      <PrintStyle extra='[data-testid="voc-row"] { break-inside: avoid; }' />
      <Group justify="space-between">
        <Title order={2} size="h3">
          連携先の声
        </Title>
        <Group gap="xs" data-print-hide>
          {isOwner && (
            <Button variant="default" onClick={() => setEditingGroups(true)}>
              グループ管理
            </Button>
          )}
          <VocExportButton params={query} />
          <Button
            onClick={() => {
              createKey.current = crypto.randomUUID();
              setEditing({ record: null });
            }}
          >
            新規登録
          </Button>
        </Group>
      </Group>
      <Group gap="sm" wrap="wrap" align="flex-end">
        <Select
          label="ステータス"
          placeholder="すべて"
          clearable
          data={statusOptions}
          value={params.status ?? null}
          onChange={(v) => onParamsChange({ status: (v as VocStatus | null) ?? undefined, page: 1 })}
          w={160}
        />
        <Select
          label="優先度"
          placeholder="すべて"
          clearable
          data={priorityOptions}
          value={params.priority ?? null}
          onChange={(v) => onParamsChange({ priority: (v as VocPriority | null) ?? undefined, page: 1 })}
          w={120}
        />
        <Select
          label="グループ"
          placeholder="すべて"
          clearable
          data={groups.map((g) => ({ value: g.id, label: g.name }))}
          value={params.group ?? null}
          onChange={(v) => onParamsChange({ group: v ?? undefined, page: 1 })}
          w={200}
        />
        <TextInput
          label="報告日（開始）"
          type="date"
          value={params.from ?? ''}
          onChange={(e) => onParamsChange({ from: e.currentTarget.value || undefined, page: 1 })}
          w={170}
        />
        <TextInput
          label="報告日（終了）"
          type="date"
          value={params.to ?? ''}
          onChange={(e) => onParamsChange({ to: e.currentTarget.value || undefined, page: 1 })}
          error={periodInOrder(params) ? undefined : '終了日は開始日以降の日付を指定してください'}
          w={170}
        />
        <TaskInstitutionSelect
          // Mounted again once the name is known or the URL picks another one.
          key={`${params.institution ?? ''}:${picked.data?.name ?? ''}`}
          value={
            params.institution
              ? {
                  id: params.institution,
                  name: picked.data?.name ?? (picked.isError ? '（不明な医療機関）' : '…'),
                }
              : null
          }
          onChange={(v) => onParamsChange({ institution: v?.id, page: 1 })}
          label="医療機関"
          placeholder="名称で検索"
          w={240}
        />
      </Group>
      <Group gap="xs">
        <Text size="sm" c="dimmed" data-testid="voc-total">
          全{list.meta.total_count}件
        </Text>
        {params.communication && (
          <Button
            size="compact-xs"
            variant="light"
            onClick={() => onParamsChange({ communication: undefined, page: 1 })}
          >
            活動記録で絞り込み中 ×
          </Button>
        )}
      </Group>
      <VocTable vocs={list.data} onEdit={(voc) => setEditing({ record: voc })} onDelete={setDeleting} />
      <ListPagination
        data-print-hide
        totalPages={list.meta.total_pages}
        value={list.meta.page}
        onChange={(page) => onParamsChange({ page })}
        aria-label="ページ"
      />
      <Suspense fallback={null}>
        {editing && (
          <VocFormModal opened voc={editing.record} groups={groups} onClose={() => setEditing(null)} onSubmit={save} />
        )}
        {editingGroups && (
          <VocGroupsModal
            opened
            groups={groups}
            onClose={() => setEditingGroups(false)}
            onSubmit={saveGroups}
            onShowGroup={(group) => {
              setEditingGroups(false);
              onParamsChange({ group, page: 1 });
            }}
          />
        )}
        {deleting && (
          <ConfirmDeleteModal
            opened
            title="VOCを削除"
            message={<>VOC「{deleting.title}」を削除しますか？</>}
            confirmLabel="削除する"
            pending={deleteVoc.isPending}
            onClose={() => setDeleting(null)}
            onConfirm={() => void confirmDelete()}
          />
        )}
      </Suspense>
    </Stack>
  );
}
