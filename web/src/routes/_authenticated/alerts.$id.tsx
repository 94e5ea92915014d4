import { createFileRoute } from '@tanstack/react-router';
import { intParam, type SearchInput } from '../../app/search-params.ts';
import { requireFeature } from '../../features/current-user/require-feature.ts';
import {
  AlertDetailPage,
  alertInstitutionsQueryOf,
  type AlertDetailParams,
} from '../../features/alerts/components/AlertDetailPage.tsx';
import { alertQueries } from '../../features/alerts/alerts.queries.ts';

const AlertSearch = (search: SearchInput): AlertDetailParams => ({
  page: intParam(search.page, 1, Number.MAX_SAFE_INTEGER, 1),
});

export const Route = createFileRoute('/_authenticated/alerts/$id')({
  staticData: { title: 'アラート詳細' },
  validateSearch: AlertSearch,
  beforeLoad: ({ context }) => requireFeature(context.user, 'alerts'),
  loaderDeps: ({ search }) => search,
  loader: ({ context, params, deps }) =>
    Promise.all([
      context.queryClient.ensureQueryData(alertQueries.detail(context.api, params.id)),
      context.queryClient.ensureQueryData(
        alertQueries.institutions(context.api, params.id, alertInstitutionsQueryOf(deps)),
      ),
    ]),
  component: AlertRoute,
});

function AlertRoute() {
  const { id } = Route.useParams();
  const params = Route.useSearch();
  const navigate = Route.useNavigate();
  return (
    <AlertDetailPage
      id={id}
      params={params}
      onParamsChange={(next) => void navigate({ search: (prev) => ({ ...prev, ...next }) })}
    />
  );
}
