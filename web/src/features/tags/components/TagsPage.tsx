import { Button, Group, Stack, Text, Title } from '@mantine/core';
import { useSuspenseQuery } from '@tanstack/react-query';
import type { Tag } from '@renkei/contracts';
import { lazy, Suspense, useCallback } from 'react';
import { useServices } from '../../../app/services-context.tsx';
import { useMutationErrorHandler } from '../../../errors/useMutationErrorHandler.ts';
import { useRecordDialogs } from '../../../ui/useRecordDialogs.ts';
import {
  tagQueries,
  useCreateTag,
  useDeleteTag,
  useUpdateTag,
  type TagInputValues,
  type TagListParams,
} from '../tags.queries.ts';
import type { TagFormValues } from './TagFormModal.tsx';
import { TagGroupList } from './TagGroupList.tsx';
import { TagTable } from './TagTable.tsx';
import { ListPagination, type ListPageProps } from '../../../ui/ListPagination.tsx';
import { LazyConfirmDeleteModal as ConfirmDeleteModal } from '../../../ui/lazy-dialogs.ts';

// The dialogs (and their inputs) load when first opened, not with the list.
const TagFormModal = lazy(() => import('./TagFormModal.tsx').then((m) => ({ default: m.TagFormModal })));

export function TagsPage({ params, onParamsChange }: ListPageProps<TagListParams>) {
  const { api } = useServices();
  const { data: list } = useSuspenseQuery(tagQueries.list(api, params));
  const { data: groups } = useSuspenseQuery(tagQueries.groups(api));
  const deleteTag = useDeleteTag();
  const { editing, setEditing, deleting, setDeleting, save, confirmDelete } = useRecordDialogs<Tag, TagInputValues>({
    create: useCreateTag(),
    update: useUpdateTag(),
    remove: deleteTag,
    messages: { created: 'タグを作成しました', updated: 'タグを更新しました', deleted: 'タグを削除しました' },
    onError: useMutationErrorHandler(),
  });

  const onToggleSort = useCallback(
    () => onParamsChange({ sort: params.sort === 'asc' ? 'desc' : 'asc', page: 1 }),
    [onParamsChange, params.sort],
  );
  const onEdit = useCallback((tag: Tag) => setEditing({ record: tag }), []);
  const onDelete = useCallback((tag: Tag) => setDeleting(tag), []);

  return (
    <Stack gap="lg">
      <Group justify="space-between">
        <Title order={2} fz="xl">
          タグ管理
        </Title>
        <Button onClick={() => setEditing({ record: null })}>新規作成</Button>
      </Group>
      <Stack gap="xs">
        <Text size="sm" c="dimmed" data-testid="tag-total">
          全{list.meta.total_count}件
        </Text>
        <TagTable tags={list.data} sort={params.sort} onToggleSort={onToggleSort} onEdit={onEdit} onDelete={onDelete} />
        <ListPagination
          totalPages={list.meta.total_pages}
          value={list.meta.page}
          onChange={(page) => onParamsChange({ page })}
          aria-label="ページ"
        />
      </Stack>
      <TagGroupList groups={groups} />
      <Suspense fallback={null}>
        {editing && (
          <TagFormModal
            opened
            tag={editing.record}
            groupNames={groups.map((g) => g.name)}
            onClose={() => setEditing(null)}
            onSubmit={(values: TagFormValues) =>
              save({ name: values.name, description: values.description, group_name: values.group_name || null })
            }
          />
        )}
        {deleting && (
          <ConfirmDeleteModal
            opened
            title="タグを削除"
            message={<>タグ「{deleting.name}」を削除しますか？</>}
            detail={
              deleting.medical_institution_count > 0 &&
              `このタグが付いている${deleting.medical_institution_count}件の医療機関からも外れます。`
            }
            confirmLabel="削除する"
            pending={deleteTag.isPending}
            onClose={() => setDeleting(null)}
            onConfirm={() => void confirmDelete()}
          />
        )}
      </Suspense>
    </Stack>
  );
}
