import { createFileRoute } from '@tanstack/react-router';
import { requireFeature } from '../../features/current-user/require-feature.ts';
import { DashboardPage } from '../../features/dashboards/components/DashboardPage.tsx';
import { dashboardQueries } from '../../features/dashboards/dashboards.queries.ts';

export const Route = createFileRoute('/_authenticated/dashboards/$id/')({
  staticData: { title: 'ダッシュボード' },
  beforeLoad: ({ context }) => requireFeature(context.user, 'dashboard'),
  loader: ({ context, params }) => context.queryClient.ensureQueryData(dashboardQueries.detail(context.api, params.id)),
  component: DashboardRoute,
});

function DashboardRoute() {
  const { id } = Route.useParams();
  return <DashboardPage id={id} />;
}
