import { createFileRoute } from '@tanstack/react-router';
import { requireFeature } from '../../features/current-user/require-feature.ts';
import { ReportNewPage } from '../../features/reports/components/ReportNewPage.tsx';
import { reportQueries } from '../../features/reports/reports.queries.ts';

const kind = 'area_reports';

export const Route = createFileRoute('/_authenticated/area_reports/new')({
  staticData: { title: 'エリアレポートの作成' },
  beforeLoad: ({ context }) => requireFeature(context.user, 'area_report'),
  loader: ({ context }) => context.queryClient.ensureQueryData(reportQueries.items(context.api, kind)),
  component: () => <ReportNewPage kind={kind} />,
});
