import { Button, Modal, SegmentedControl, Select, Stack, Text, TextInput } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { fieldErrorsOf, isApiError } from '../../../api/api-errors.ts';
import { useServices } from '../../../app/services-context.tsx';
import { toast } from '../../../app/toast.ts';
import { useMutationErrorHandler } from '../../../errors/useMutationErrorHandler.ts';
import { SaveCancelButtons } from '../../../ui/SaveCancelButtons.tsx';
import { currentUserQueries } from '../../current-user/current-user.queries.ts';
import {
  actionListQueries,
  actionListsPerPage,
  actionListStatusLabels,
  useBulkInsertActionListItems,
  useCreateActionList,
} from '../action-lists.queries.ts';
import { useReturnFocus } from '../../../ui/useReturnFocus.ts';

type Target = 'existing' | 'new';

/**
 * 「アクションリストに追加」 on the partner search: the institutions shown (the current page's) go onto
 * an existing list or a new one in one call. Shown only where the tenant has action lists.
 */
export function AddToActionListButton({ institutionIds }: { institutionIds: readonly string[] }) {
  const { api } = useServices();
  const user = useQuery(currentUserQueries.detail(api));
  const [opened, setOpened] = useState(false);
  if (user.data?.features.includes('action_lists') !== true) return null;
  return (
    <>
      <Button
        size="xs"
        variant="light"
        disabled={institutionIds.length === 0}
        onClick={() => setOpened(true)}
        data-testid="add-to-action-list"
      >
        アクションリストに追加
      </Button>
      {opened && <AddToActionListModal institutionIds={institutionIds} onClose={() => setOpened(false)} />}
    </>
  );
}

function AddToActionListModal({ institutionIds, onClose }: { institutionIds: readonly string[]; onClose: () => void }) {
  useReturnFocus(true);
  const { api } = useServices();
  const lists = useQuery(actionListQueries.lists(api, { page: 1, per_page: actionListsPerPage }));
  const hasLists = (lists.data?.data.length ?? 0) > 0;
  const [chosenTarget, setTarget] = useState<Target | null>(null);
  // With no list yet, the only way is a new one.
  const target: Target = chosenTarget ?? (lists.isSuccess && !hasLists ? 'new' : 'existing');
  const [listId, setListId] = useState<string | null>(null);
  const [name, setName] = useState('');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const insert = useBulkInsertActionListItems();
  const create = useCreateActionList();
  const onError = useMutationErrorHandler();
  const saving = insert.isPending || create.isPending;
  const ids = [...institutionIds];

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    try {
      if (target === 'new') {
        if (name.trim() === '') {
          setErrors({ name: 'アクションリスト名を入力してください' });
          return;
        }
        const created = await create.mutateAsync({ name, medical_institution_ids: ids });
        toast.success(
          `アクションリスト「${created.name}」を作成し、${created.medical_institution_count}件を追加しました`,
        );
      } else {
        const list = lists.data?.data.find((l) => l.id === listId);
        if (!list) {
          setErrors({ list: '追加先のアクションリストを選択してください' });
          return;
        }
        const { count } = await insert.mutateAsync({ id: list.id, institutionIds: ids });
        const already = new Set(ids).size - count;
        toast.success(
          `アクションリスト「${list.name}」に${count}件を追加しました${already > 0 ? `（${already}件は登録済み）` : ''}`,
        );
      }
      onClose();
    } catch (error) {
      if (isApiError(error) && error.status === 422) {
        const fields = fieldErrorsOf(error);
        setErrors({ [target === 'new' ? 'name' : 'list']: fields.name ?? Object.values(fields)[0] ?? error.message });
      } else {
        onClose();
        onError(error);
      }
    }
  };

  return (
    <Modal opened onClose={onClose} title="アクションリストに追加" centered>
      <form onSubmit={(e) => void submit(e)} noValidate>
        <Stack gap="sm">
          <Text size="sm">表示中の医療機関{ids.length}件をアクションリストに追加します。</Text>
          <SegmentedControl
            aria-label="追加先"
            data={[
              { value: 'existing', label: '既存のリストに追加', disabled: lists.isSuccess && !hasLists },
              { value: 'new', label: '新しいリストを作成' },
            ]}
            value={target}
            onChange={(v) => {
              setTarget(v as Target);
              setErrors({});
            }}
          />
          {target === 'existing' ? (
            <Select
              label="追加先のアクションリスト"
              required
              searchable
              placeholder={lists.isPending ? '読み込み中…' : 'リストを選択'}
              data={(lists.data?.data ?? []).map((l) => ({
                value: l.id,
                label: `${l.name}（${actionListStatusLabels[l.status]}・${l.medical_institution_count}件）`,
              }))}
              value={listId}
              onChange={(v) => {
                setListId(v);
                setErrors({});
              }}
              error={errors.list}
              nothingFoundMessage="見つかりません"
              data-autofocus
            />
          ) : (
            <TextInput
              label="新しいアクションリスト名"
              required
              maxLength={100}
              value={name}
              onChange={(e) => {
                setName(e.currentTarget.value);
                setErrors({});
              }}
              error={errors.name}
              data-autofocus
            />
          )}
          <SaveCancelButtons saving={saving} onCancel={onClose} mt="sm" testId="add-to-action-list-save" />
        </Stack>
      </form>
    </Modal>
  );
}
