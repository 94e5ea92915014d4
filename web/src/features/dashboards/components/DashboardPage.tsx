import { Group, Stack, Text, Title } from '@mantine/core';
import { useSuspenseQuery } from '@tanstack/react-query';
import { useServices } from '../../../app/services-context.tsx';
import { usePageTitle } from '../../../frame/page-title.ts';
import { ButtonLink } from '../../medical-institutions/components/router-links.tsx';
import { dashboardQueries } from '../dashboards.queries.ts';
import { DashboardReportCard } from './DashboardReportCard.tsx';

/** `/dashboards/{id}`: the dashboard's reports, one below the other, as the dashboard narrows them. */
export function DashboardPage({ id }: { id: string }) {
  const { api } = useServices();
  const { data: dashboard } = useSuspenseQuery(dashboardQueries.detail(api, id));
  usePageTitle(dashboard.name);
  return (
    <Stack gap="md">
      <Group justify="space-between">
        <Group>
          <ButtonLink to="/dashboards" search={{ page: 1 }} variant="default">
            一覧へ戻る
          </ButtonLink>
          <Title order={2}>{dashboard.name}</Title>
        </Group>
        <ButtonLink to="/dashboards/$id/edit" params={{ id }}>
          編集
        </ButtonLink>
      </Group>
      {dashboard.contents.length === 0 ? (
        <Text c="dimmed">レポートが配置されていません。「編集」からレポートを追加してください。</Text>
      ) : (
        dashboard.contents.map((content, i) => (
          <DashboardReportCard key={`${i}-${content.report_id}`} dashboard={dashboard} content={content} />
        ))
      )}
    </Stack>
  );
}
