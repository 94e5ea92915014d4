import { createFileRoute } from '@tanstack/react-router';
import { requireFeature } from '../../features/current-user/require-feature.ts';
import { ReportNewPage } from '../../features/reports/components/ReportNewPage.tsx';
import { reportQueries } from '../../features/reports/reports.queries.ts';

const kind = 'own_department_reports';

export const Route = createFileRoute('/_authenticated/own_department_reports/new')({
  staticData: { title: '自院診療科レポートの作成' },
  beforeLoad: ({ context }) => requireFeature(context.user, 'own_department_report'),
  loader: ({ context }) => context.queryClient.ensureQueryData(reportQueries.items(context.api, kind)),
  component: () => <ReportNewPage kind={kind} />,
});
