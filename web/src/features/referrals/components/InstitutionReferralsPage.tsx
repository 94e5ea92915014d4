import { Group, Pagination, Paper, Stack, Text, Title } from '@mantine/core';
import { useQuery, useSuspenseQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useServices } from '../../../app/services-context.tsx';
import { ButtonLink } from '../../medical-institutions/components/router-links.tsx';
import { institutionQueries } from '../../medical-institutions/medical-institutions.queries.ts';
import { lastThreeFiscalYears, referralQueries } from '../referrals.queries.ts';
import { ReferralEntryForm } from './ReferralEntryForm.tsx';
import { ReferralList } from './ReferralList.tsx';
import { ReferralMonthlyChart } from './ReferralMonthlyChart.tsx';

/** /crms/{id}/referrals: the last three fiscal years month by month, and the referrals with their admissions. */
export function InstitutionReferralsPage({ id }: { id: string }) {
  const { api } = useServices();
  const { data: summary } = useSuspenseQuery(institutionQueries.summary(api, id));
  const [page, setPage] = useState(1);
  const chart = useQuery(referralQueries.monthly(api, id, lastThreeFiscalYears()));
  const list = useQuery(referralQueries.list(api, id, page));
  return (
    <Stack gap="md">
      <Group justify="space-between">
        <Title order={2} fz="xl">
          {summary.name} の紹介実績
        </Title>
        <ButtonLink to="/crms/$id" params={{ id }} variant="default" size="xs">
          医療機関ページへ戻る
        </ButtonLink>
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
        {list.data && <ReferralList referrals={list.data.data} />}
        {list.data && list.data.meta.total_pages > 1 && (
          <Pagination mt="sm" total={list.data.meta.total_pages} value={page} onChange={setPage} aria-label="ページ" />
        )}
      </Paper>
      <Paper withBorder p="md">
        <Title order={3} fz="md" mb="sm">
          紹介・逆紹介の手入力
        </Title>
        <ReferralEntryForm id={id} />
      </Paper>
    </Stack>
  );
}
