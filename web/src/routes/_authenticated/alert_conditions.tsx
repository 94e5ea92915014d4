import { createFileRoute } from '@tanstack/react-router';
import { intParam, type SearchInput } from '../../app/search-params.ts';
import { requireFeature } from '../../features/current-user/require-feature.ts';
import {
  AlertConditionsPage,
  alertConditionsQueryOf,
  type AlertConditionsParams,
} from '../../features/alerts/components/AlertConditionsPage.tsx';
import { alertQueries } from '../../features/alerts/alerts.queries.ts';

const ConditionsSearch = (search: SearchInput): AlertConditionsParams => ({
  page: intParam(search.page, 1, Number.MAX_SAFE_INTEGER, 1),
});

export const Route = createFileRoute('/_authenticated/alert_conditions')({
  staticData: { title: 'アラート条件' },
  validateSearch: ConditionsSearch,
  beforeLoad: ({ context }) => requireFeature(context.user, 'alerts'),
  loaderDeps: ({ search }) => search,
  loader: ({ context, deps }) =>
    context.queryClient.ensureQueryData(alertQueries.conditions(context.api, alertConditionsQueryOf(deps))),
  component: AlertConditionsRoute,
});

function AlertConditionsRoute() {
  const params = Route.useSearch();
  const navigate = Route.useNavigate();
  const { user } = Route.useRouteContext();
  return (
    <AlertConditionsPage
      params={params}
      isOwner={user?.role === 'owner'}
      onParamsChange={(next) => void navigate({ search: (prev) => ({ ...prev, ...next }) })}
    />
  );
}
