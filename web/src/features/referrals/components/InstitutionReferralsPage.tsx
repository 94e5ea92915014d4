import { Group, Modal, Paper, Stack, Text, Title } from '@mantine/core';
import type { Referral } from '@renkei/contracts';
import { useQuery, useSuspenseQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useServices } from '../../../app/services-context.tsx';
import { toast } from '../../../app/toast.ts';
import { useMutationErrorHandler } from '../../../errors/useMutationErrorHandler.ts';
import { ConfirmDeleteModal } from '../../../ui/ConfirmDeleteModal.tsx';
import { BackToInstitutionButton } from '../../medical-institutions/components/router-links.tsx';
import { institutionQueries } from '../../medical-institutions/medical-institutions.queries.ts';
import { lastThreeFiscalYears, referralQueries, useDeleteReferral } from '../referrals.queries.ts';
import { ReferralEntryForm } from './ReferralEntryForm.tsx';
import { ReferralList } from './ReferralList.tsx';
import { ReferralMonthlyChart } from './ReferralMonthlyChart.tsx';
import { ReverseReferralsSection } from './ReverseReferralsSection.tsx';
import { ListPagination } from '../../../ui/ListPagination.tsx';

/** /crms/{id}/referrals: the last three fiscal years month by month, and the referrals with their admissions. */
export function InstitutionReferralsPage({ id }: { id: string }) {
  const { api } = useServices();
  const { data: summary } = useSuspenseQuery(institutionQueries.summary(api, id));
  const [page, setPage] = useState(1);
  const chart = useQuery(referralQueries.monthly(api, id, lastThreeFiscalYears()));
  const list = useQuery(referralQueries.list(api, id, page));
  const [editing, setEditing] = useState<Referral | null>(null);
  const [deleting, setDeleting] = useState<Referral | null>(null);
  const remove = useDeleteReferral();
  const onError = useMutationErrorHandler();
  const confirmDelete = async () => {
    if (!deleting) return;
    try {
      await remove.mutateAsync({ institutionId: id, id: deleting.id });
      toast.success('紹介を削除しました');
    } catch (error) {
      onError(error);
    } finally {
      setDeleting(null);
    }
  };
  return (
    <Stack gap="md">
      <Group justify="space-between">
        <Title order={2} fz="xl">
          {summary.name} の紹介実績
        </Title>
        <BackToInstitutionButton id={id} />
      </Group>
      <Paper withBorder p="md">
        <Title order={3} fz="md" mb="sm">
          月別の紹介・入院・手術（直近3年度）
        </Title>
        {chart.isError && <Text c="red">グラフを読み込めませんでした。</Text>}
        {chart.data && <ReferralMonthlyChart data={chart.data} />}
      </Paper>
      <Paper withBorder p="md">
        <Title order={3} fz="md" mb="sm">
          紹介一覧{list.data ? `（${list.data.meta.total_count}件）` : ''}
        </Title>
        {list.isError && <Text c="red">紹介一覧を読み込めませんでした。</Text>}
        {list.data && <ReferralList referrals={list.data.data} onEdit={setEditing} onDelete={setDeleting} />}
        <ListPagination
          totalPages={list.data?.meta.total_pages}
          mt="sm"
          value={page}
          onChange={setPage}
          aria-label="ページ"
        />
      </Paper>
      <ReverseReferralsSection id={id} />
      <Paper withBorder p="md">
        <Title order={3} fz="md" mb="sm">
          紹介・逆紹介の手入力
        </Title>
        <ReferralEntryForm id={id} />
      </Paper>
      <Modal opened={editing !== null} onClose={() => setEditing(null)} title="手入力した紹介の修正" size="lg">
        {editing && <ReferralEntryForm key={editing.id} id={id} editing={editing} onDone={() => setEditing(null)} />}
      </Modal>
      <ConfirmDeleteModal
        opened={deleting !== null}
        title="紹介の削除"
        message={deleting ? `${deleting.referral_date} の紹介（患者ID ${deleting.patient_id}）を削除しますか？` : ''}
        detail="集計と入院の紐付けからも外れます。"
        pending={remove.isPending}
        onClose={() => setDeleting(null)}
        onConfirm={() => void confirmDelete()}
        testId="referral-delete-confirm"
      />
    </Stack>
  );
}
