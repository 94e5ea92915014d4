import { Button, Group, Stack, Text, Title } from '@mantine/core';
import { useSuspenseQuery } from '@tanstack/react-query';
import type { Account } from '@renkei/contracts';
import { lazy, Suspense, useCallback } from 'react';
import { useServices } from '../../../app/services-context.tsx';
import { toast } from '../../../app/toast.ts';
import { useMutationErrorHandler } from '../../../errors/useMutationErrorHandler.ts';
import { useRecordDialogs } from '../../../ui/useRecordDialogs.ts';
import {
  accountQueries,
  useCreateAccount,
  useDeleteAccount,
  useResendInvitation,
  useUpdateAccount,
  type AccountInputValues,
  type AccountListParams,
} from '../accounts.queries.ts';
import { toAccountInput, type AccountFormValues } from '../account-form.ts';
import { AccountTable } from './AccountTable.tsx';
import { ListPagination, type ListPageProps } from '../../../ui/ListPagination.tsx';
import { LazyConfirmDeleteModal as ConfirmDeleteModal } from '../../../ui/lazy-dialogs.ts';

const AccountFormModal = lazy(() => import('./AccountFormModal.tsx').then((m) => ({ default: m.AccountFormModal })));

type Row = Account & { version: number };

export function AccountsPage({
  params,
  selfId,
  onParamsChange,
}: ListPageProps<AccountListParams> & {
  selfId: string;
}) {
  const { api } = useServices();
  const { data: list } = useSuspenseQuery(accountQueries.list(api, params));
  const onError = useMutationErrorHandler();
  const deleteAccount = useDeleteAccount();
  const resend = useResendInvitation();
  const { editing, setEditing, deleting, setDeleting, save, confirmDelete } = useRecordDialogs<Row, AccountInputValues>(
    {
      create: useCreateAccount(),
      update: useUpdateAccount(),
      remove: deleteAccount,
      messages: {
        created: 'アカウントを招待しました',
        updated: 'アカウントを更新しました',
        deleted: 'アカウントを削除しました',
      },
      onError,
    },
  );

  const onEdit = useCallback((account: Account) => setEditing({ record: { ...account, version: 0 } }), []);
  const onDelete = useCallback((account: Account) => setDeleting({ ...account, version: 0 }), []);
  const onResend = useCallback(
    (account: Account) =>
      void resend
        .mutateAsync(account.id)
        .then(() => toast.success(`${account.username}さんに招待メールを再送しました`), onError),
    [resend, onError],
  );

  return (
    <Stack gap="lg">
      <Group justify="space-between">
        <Title order={2} fz="xl">
          アカウント管理
        </Title>
        <Button onClick={() => setEditing({ record: null })}>招待</Button>
      </Group>
      <Stack gap="xs">
        <Text size="sm" c="dimmed" data-testid="account-total">
          全{list.meta.total_count}件
        </Text>
        <AccountTable accounts={list.data} selfId={selfId} onEdit={onEdit} onDelete={onDelete} onResend={onResend} />
        <ListPagination
          totalPages={list.meta.total_pages}
          value={list.meta.page}
          onChange={(page) => onParamsChange({ page })}
          aria-label="ページ"
        />
      </Stack>
      <Suspense fallback={null}>
        {editing && (
          <AccountFormModal
            opened
            account={editing.record}
            onClose={() => setEditing(null)}
            onSubmit={(values: AccountFormValues) => save(toAccountInput(values, !editing.record))}
          />
        )}
        {deleting && (
          <ConfirmDeleteModal
            opened
            title="アカウントを削除"
            message={<>「{deleting.username}」さんのアカウントを削除しますか？</>}
            detail="削除したアカウントではログインできなくなり、ログイン中の画面も次の操作でログアウトされます。登録済みの記録には氏名が残ります。"
            confirmLabel="削除する"
            pending={deleteAccount.isPending}
            onClose={() => setDeleting(null)}
            onConfirm={() => void confirmDelete()}
          />
        )}
      </Suspense>
    </Stack>
  );
}
