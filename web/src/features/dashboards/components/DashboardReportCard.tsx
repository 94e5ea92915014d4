import { Card, Group, Loader, Stack, Text, Title } from '@mantine/core';
import type { Dashboard } from '@renkei/contracts';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { isApiError } from '../../../api/api-errors.ts';
import { useServices } from '../../../app/services-context.tsx';
import { AnchorLink } from '../../medical-institutions/components/router-links.tsx';
import { ReportResultTable } from '../../reports/components/ReportResultTable.tsx';
import { reportKinds } from '../../reports/report-kinds.ts';
import { periodLabel } from '../../reports/report-labels.ts';
import { detailSearch, reportQueries } from '../../reports/reports.queries.ts';
import { reportKindOfType } from '../dashboard-report.ts';
import { dashboardQueries } from '../dashboards.queries.ts';

/** One report of a dashboard: its rows as the dashboard narrows them, a page at a time, or why it cannot show. */
export function DashboardReportCard({
  dashboard,
  content,
}: {
  dashboard: Dashboard;
  content: Dashboard['contents'][number];
}) {
  const { api } = useServices();
  const kind = reportKindOfType[content.report_type];
  const info = reportKinds[kind];
  const definition = useQuery({ ...reportQueries.detail(api, kind, content.report_id), retry: false });
  // The card's page is its own (several cards on a dashboard page independently), not in the URL.
  const [page, setPage] = useState(1);
  const result = useQuery({ ...dashboardQueries.result(api, dashboard, kind, definition.data, page), retry: false });
  const failure = definition.error ?? result.error;
  const gone = isApiError(definition.error) && definition.error.status === 404;

  return (
    <Card withBorder padding="md" data-testid="dashboard-report">
      <Stack gap="xs">
        <Group justify="space-between" align="baseline">
          {definition.data ? (
            <Title order={4}>
              <AnchorLink to={`${info.route}/$id`} params={{ id: content.report_id }} search={detailSearch}>
                {definition.data.name}
              </AnchorLink>
            </Title>
          ) : (
            <Title order={4} c="dimmed">
              {gone ? '削除されたレポート' : info.title}
            </Title>
          )}
          {/* The period says which figures these are (a printed dashboard has no link to open). */}
          <Text size="sm" c="dimmed" data-testid="dashboard-report-kind">
            {info.title}
            {definition.data && `・${periodLabel(definition.data.aggregation_settings)}`}
          </Text>
        </Group>
        {gone ? (
          <Text size="sm" c="dimmed">
            このレポートは削除されました。ダッシュボードを編集して外してください。
          </Text>
        ) : failure ? (
          <Text size="sm" c="red">
            レポートを表示できませんでした。
            {isApiError(failure) && failure.status === 403
              ? 'このレポートを見る権限がありません。'
              : 'レポートの設定を確認してください。'}
          </Text>
        ) : result.data ? (
          <ReportResultTable result={result.data} kind={kind} onPageChange={setPage} />
        ) : (
          <Group justify="center" p="md">
            <Loader size="sm" />
          </Group>
        )}
      </Stack>
    </Card>
  );
}
