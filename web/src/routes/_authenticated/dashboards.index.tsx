import { createFileRoute } from '@tanstack/react-router';
import { intParam, type SearchInput } from '../../app/search-params.ts';
import { requireFeature } from '../../features/current-user/require-feature.ts';
import { DashboardsPage, type DashboardsParams } from '../../features/dashboards/components/DashboardsPage.tsx';
import { dashboardQueries } from '../../features/dashboards/dashboards.queries.ts';

const DashboardsSearch = (search: SearchInput): DashboardsParams => ({
  page: intParam(search.page, 1, Number.MAX_SAFE_INTEGER, 1),
});

export const Route = createFileRoute('/_authenticated/dashboards/')({
  staticData: { title: 'ダッシュボード' },
  validateSearch: DashboardsSearch,
  beforeLoad: ({ context }) => requireFeature(context.user, 'dashboard'),
  loaderDeps: ({ search }) => search,
  loader: ({ context, deps }) => context.queryClient.ensureQueryData(dashboardQueries.list(context.api, deps)),
  component: DashboardsRoute,
});

function DashboardsRoute() {
  const params = Route.useSearch();
  const navigate = Route.useNavigate();
  return (
    <DashboardsPage
      params={params}
      onParamsChange={(next) => void navigate({ search: (prev) => ({ ...prev, ...next }) })}
    />
  );
}
