import { createFileRoute } from '@tanstack/react-router';
import { requireFeature } from '../../features/current-user/require-feature.ts';
import { ReportNewPage } from '../../features/reports/components/ReportNewPage.tsx';
import { reportQueries } from '../../features/reports/reports.queries.ts';

const kind = 'medical_institution_reports';

export const Route = createFileRoute('/_authenticated/medical_institutions_reports/new')({
  staticData: { title: '医療機関レポートの作成' },
  beforeLoad: ({ context }) => requireFeature(context.user, 'medical_institution_report'),
  loader: ({ context }) => context.queryClient.ensureQueryData(reportQueries.items(context.api, kind)),
  component: () => <ReportNewPage kind={kind} />,
});
