import { createFileRoute } from '@tanstack/react-router';
import { requireFeature } from '../../features/current-user/require-feature.ts';
import { ReportNewPage } from '../../features/reports/components/ReportNewPage.tsx';
import { reportQueries } from '../../features/reports/reports.queries.ts';

const kind = 'communication_reports';

export const Route = createFileRoute('/_authenticated/communication_reports/new')({
  staticData: { title: 'コミュニケーションレポートの作成' },
  beforeLoad: ({ context }) => requireFeature(context.user, 'communication_report'),
  loader: ({ context }) => context.queryClient.ensureQueryData(reportQueries.items(context.api, kind)),
  component: () => <ReportNewPage kind={kind} />,
});
