import { Modal, Paper, Text, Title } from '@mantine/core';
import type { ListedReverseReferral } from '@renkei/contracts';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useServices } from '../../../app/services-context.tsx';
import { toast } from '../../../app/toast.ts';
import { useMutationErrorHandler } from '../../../errors/useMutationErrorHandler.ts';
import { ConfirmDeleteModal } from '../../../ui/ConfirmDeleteModal.tsx';
import { referralQueries, useDeleteReverseReferral } from '../referrals.queries.ts';
import { ReferralEntryForm } from './ReferralEntryForm.tsx';
import { ReverseReferralList } from './ReverseReferralList.tsx';
import { ListPagination } from '../../../ui/ListPagination.tsx';

/** The institution's reverse referrals, paged, with the hand entries' correction and withdrawal. */
export function ReverseReferralsSection({ id }: { id: string }) {
  const { api } = useServices();
  const [page, setPage] = useState(1);
  const list = useQuery(referralQueries.reverseList(api, id, page));
  const [editing, setEditing] = useState<ListedReverseReferral | null>(null);
  const [deleting, setDeleting] = useState<ListedReverseReferral | null>(null);
  const remove = useDeleteReverseReferral();
  const onError = useMutationErrorHandler();
  const confirmDelete = async () => {
    if (!deleting) return;
    try {
      await remove.mutateAsync({ institutionId: id, id: deleting.id });
      toast.success('逆紹介を削除しました');
    } catch (error) {
      onError(error);
    } finally {
      setDeleting(null);
    }
  };
  return (
    <Paper withBorder p="md">
      <Title order={3} fz="md" mb="sm">
        逆紹介一覧{list.data ? `（${list.data.meta.total_count}件）` : ''}
      </Title>
      {list.isError && <Text c="red">逆紹介一覧を読み込めませんでした。</Text>}
      {list.data && (
        <ReverseReferralList reverseReferrals={list.data.data} onEdit={setEditing} onDelete={setDeleting} />
      )}
      {/* Paper shows the current page; its controls do not print (as the referral list's). */}
      <div data-print-hide>
        <ListPagination
          totalPages={list.data?.meta.total_pages}
          mt="sm"
          value={page}
          onChange={setPage}
          aria-label="逆紹介のページ"
        />
      </div>
      <Modal opened={editing !== null} onClose={() => setEditing(null)} title="手入力した逆紹介の修正" size="lg">
        {editing && (
          <ReferralEntryForm key={editing.id} id={id} editingReverse={editing} onDone={() => setEditing(null)} />
        )}
      </Modal>
      <ConfirmDeleteModal
        opened={deleting !== null}
        title="逆紹介の削除"
        message={
          deleting ? `${deleting.reverse_referral_date} の逆紹介（患者ID ${deleting.patient_id}）を削除しますか？` : ''
        }
        detail="集計からも外れます。"
        pending={remove.isPending}
        onClose={() => setDeleting(null)}
        onConfirm={() => void confirmDelete()}
        testId="reverse-referral-delete-confirm"
      />
    </Paper>
  );
}
