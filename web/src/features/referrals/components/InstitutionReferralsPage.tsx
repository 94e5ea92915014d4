import { Button, Group, Modal, Paper, Stack, Text, Title } from '@mantine/core';
import { endpoints, fillPath, type ChartData, type Referral } from '@renkei/contracts';
import { useQuery, useSuspenseQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useServices } from '../../../app/services-context.tsx';
import { toast } from '../../../app/toast.ts';
import { useMutationErrorHandler } from '../../../errors/useMutationErrorHandler.ts';
import { ConfirmDeleteModal } from '../../../ui/ConfirmDeleteModal.tsx';
import { AnchorLink, BackToInstitutionButton } from '../../medical-institutions/components/router-links.tsx';
import { currentUserQueries } from '../../current-user/current-user.queries.ts';
import { downloadFile } from '../../imports/file-transfer.ts';
import { CsvExportButton } from '../../../ui/CsvExportButton.tsx';
import { institutionQueries } from '../../medical-institutions/medical-institutions.queries.ts';
import { lastThreeFiscalYears, referralQueries, useDeleteReferral } from '../referrals.queries.ts';
import { ReferralEntryForm } from './ReferralEntryForm.tsx';
import { ReferralList } from './ReferralList.tsx';
import { ReferralMonthlyChart } from './ReferralMonthlyChart.tsx';
import { ReverseReferralsSection } from './ReverseReferralsSection.tsx';
import { ListPagination } from '../../../ui/ListPagination.tsx';

// The frame and the controls have no place on paper: the page prints on A4 landscape, the monthly table
// whole (on screen it scrolls) and the referral list's current page (the CSV has every referral).
const printStyle = `
@page { size: A4 landscape; margin: 10mm; }
@media print {
  .mantine-AppShell-header, .mantine-AppShell-navbar, .mantine-AppShell-footer, [data-print-hide] { display: none !important; }
  .mantine-AppShell-main { padding: 0 !important; min-height: 0 !important; }
  [data-table-scroll], [data-table-scroll] .mantine-ScrollArea-viewport { height: auto !important; max-height: none !important; overflow: visible !important; }
  [data-referrals-page] .mantine-Table-thead { position: static !important; }
  [data-referrals-page] .mantine-Paper-root { break-inside: auto; border: none; padding: 0; }
  body { background: #fff !important; -webkit-print-color-adjust: exact; print-color-adjust: exact; }
}`;

/** Whether the chart's three fiscal years hold a referral at all. */
function hasReferrals(data: ChartData): boolean {
  return data.series.some((s) => s.key === 'referrals' && s.values.some((v) => (v ?? 0) > 0));
}

/** Whether anything at all is to be charted (reverse referrals may come without referrals). */
const hasFigures = (data: ChartData) => data.series.some((s) => s.values.some((v) => (v ?? 0) > 0));

function NoReferrals({ canUpload }: { canUpload: boolean }) {
  return (
    <Text size="sm" c="dimmed" data-testid="referrals-empty">
      この医療機関からの紹介データはまだありません。
      {canUpload ? (
        <>
          <AnchorLink to="/data_uploads" size="sm">
            データアップロード
          </AnchorLink>
          から紹介リストを取り込むと表示されます
        </>
      ) : (
        // A member cannot open the uploads (owners' work): say who brings the data in.
        '管理者がデータアップロードで紹介リストを取り込むと表示されます'
      )}
    </Text>
  );
}

/** /crms/{id}/referrals: the last three fiscal years month by month, and the referrals with their admissions. */
export function InstitutionReferralsPage({ id }: { id: string }) {
  const services = useServices();
  const { api } = services;
  // The signed-in user is always cached by the authenticated layout: read it, never fetch it here.
  const user = useQuery({ ...currentUserQueries.detail(api), enabled: false });
  const canUpload = user.data?.role === 'owner' && user.data.features.includes('data_uploads');
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
  const exportReferrals = (encoding: 'utf-8' | 'shift_jis') =>
    downloadFile(
      services,
      {
        ...endpoints.exportMedicalInstitutionReferrals,
        path: fillPath(endpoints.exportMedicalInstitutionReferrals.path, { id }),
      },
      { query: { encoding }, fallbackName: 'referrals.csv' },
    );
  return (
    <Stack gap="md" data-referrals-page>
      <style>{printStyle}</style>
      <Group justify="space-between">
        <Title order={2} fz="xl">
          {summary.name} の紹介実績
        </Title>
        <Group gap="xs" data-print-hide>
          <Button variant="default" onClick={() => window.print()} data-testid="print">
            印刷
          </Button>
          <BackToInstitutionButton id={id} />
        </Group>
      </Group>
      <Paper withBorder p="md">
        <Title order={3} fz="md" mb="sm">
          月別の紹介・入院・手術（直近3年度）
        </Title>
        {chart.isError && <Text c="red">グラフを読み込めませんでした。</Text>}
        {chart.data && !hasReferrals(chart.data) && <NoReferrals canUpload={canUpload} />}
        {chart.data && hasFigures(chart.data) && <ReferralMonthlyChart data={chart.data} />}
      </Paper>
      <Paper withBorder p="md">
        <Group justify="space-between" mb="sm">
          <Title order={3} fz="md">
            紹介一覧{list.data ? `（${list.data.meta.total_count}件）` : ''}
          </Title>
          {list.data && list.data.meta.total_count > 0 && (
            <div data-print-hide>
              <CsvExportButton size="xs" testId="referrals-export" download={exportReferrals} />
            </div>
          )}
        </Group>
        {list.isError && <Text c="red">紹介一覧を読み込めませんでした。</Text>}
        {list.data && <ReferralList referrals={list.data.data} onEdit={setEditing} onDelete={setDeleting} />}
        <div data-print-hide>
          <ListPagination
            totalPages={list.data?.meta.total_pages}
            mt="sm"
            value={page}
            onChange={setPage}
            aria-label="ページ"
          />
        </div>
      </Paper>
      <ReverseReferralsSection id={id} />
      <Paper withBorder p="md" data-print-hide>
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
