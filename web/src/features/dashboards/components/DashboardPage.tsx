import { Button, Group, Stack, Text, Title } from '@mantine/core';
import { useSuspenseQuery } from '@tanstack/react-query';
import { useServices } from '../../../app/services-context.tsx';
import { usePageTitle } from '../../../frame/page-title.ts';
import { ButtonLink } from '../../medical-institutions/components/router-links.tsx';
import { ReportPrintStyle } from '../../reports/components/ReportPrintStyle.tsx';
import { dashboardQueries } from '../dashboards.queries.ts';
import { DashboardReportCard } from './DashboardReportCard.tsx';

/**
 * `/dashboards/{id}`: the dashboard's reports, one below the other, as the dashboard narrows them. It is
 * what a liaison meeting looks at, so it prints: its name and reports without the frame and buttons, each
 * report starting whole on a sheet where it fits.
 */
export function DashboardPage({ id }: { id: string }) {
  const { api } = useServices();
  const { data: dashboard } = useSuspenseQuery(dashboardQueries.detail(api, id));
  usePageTitle(dashboard.name);
  return (
    <Stack gap="md" data-report-print>
      <ReportPrintStyle extra='[data-testid="dashboard-report"] { break-inside: avoid; }' />
      <Group justify="space-between">
        <Group>
          <ButtonLink to="/dashboards" search={{ page: 1 }} variant="default" data-print-hide>
            一覧へ戻る
          </ButtonLink>
          <Title order={2}>{dashboard.name}</Title>
        </Group>
        <Group gap="xs" data-print-hide>
          <Button variant="default" onClick={() => window.print()} disabled={dashboard.contents.length === 0}>
            印刷
          </Button>
          <ButtonLink to="/dashboards/$id/edit" params={{ id }}>
            編集
          </ButtonLink>
        </Group>
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
