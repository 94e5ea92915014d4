import { createFileRoute } from '@tanstack/react-router';
import { enumParam, intParam, type SearchInput } from '../../app/search-params.ts';
import { requireFeature } from '../../features/current-user/require-feature.ts';
import { AlertsPage, alertListQueryOf, type AlertsParams } from '../../features/alerts/components/AlertsPage.tsx';
import { alertQueries } from '../../features/alerts/alerts.queries.ts';

const AlertsSearch = (search: SearchInput): AlertsParams => ({
  page: intParam(search.page, 1, Number.MAX_SAFE_INTEGER, 1),
  status: enumParam(search.status, ['open', 'archived'], 'open'),
});

export const Route = createFileRoute('/_authenticated/alerts/')({
  staticData: { title: 'アラート' },
  validateSearch: AlertsSearch,
  beforeLoad: ({ context }) => requireFeature(context.user, 'alerts'),
  loaderDeps: ({ search }) => search,
  loader: ({ context, deps }) =>
    context.queryClient.ensureQueryData(alertQueries.list(context.api, alertListQueryOf(deps))),
  component: AlertsRoute,
});

function AlertsRoute() {
  const params = Route.useSearch();
  const navigate = Route.useNavigate();
  return (
    <AlertsPage
      params={params}
      onParamsChange={(next) => void navigate({ search: (prev) => ({ ...prev, ...next }) })}
    />
  );
}
