import { Button, Group, Select, Stack, Text, Title } from '@mantine/core';
import { useSuspenseQuery } from '@tanstack/react-query';
import type { VocListItem, VocPriority, VocStatus } from '@renkei/contracts';
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
import { ListPagination, type ListPageProps } from '../../../ui/ListPagination.tsx';
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
  /** VOCs of one institution (from its CRM page). */
  institution?: string | undefined;
}

/** What the list asks the API for, from the URL's filters (the loader uses the same). */
export const vocListQueryOf = (p: VocsParams) => ({
  page: p.page,
  per_page: 20,
  ...(p.status ? { status: p.status } : {}),
  ...(p.priority ? { priority: p.priority } : {}),
  ...(p.group ? { voc_group_id: p.group } : {}),
  ...(p.communication ? { communication_id: p.communication } : {}),
  ...(p.institution ? { medical_institution_id: p.institution } : {}),
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
      <Group justify="space-between">
        <Title order={2} size="h3">
          連携先の声
        </Title>
        <Group gap="xs">
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
        {params.institution && (
          <Button size="compact-xs" variant="light" onClick={() => onParamsChange({ institution: undefined, page: 1 })}>
            医療機関で絞り込み中 ×
          </Button>
        )}
      </Group>
      <VocTable vocs={list.data} onEdit={(voc) => setEditing({ record: voc })} onDelete={setDeleting} />
      <ListPagination
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
          <VocGroupsModal opened groups={groups} onClose={() => setEditingGroups(false)} onSubmit={saveGroups} />
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
