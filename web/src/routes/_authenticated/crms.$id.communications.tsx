import { useSuspenseQuery } from '@tanstack/react-query';
import { createFileRoute } from '@tanstack/react-router';
import { ApiError } from '../../api/api-errors.ts';
import { isUuid } from '../../app/search-params.ts';
import { useServices } from '../../app/services-context.tsx';
import { requireFeature } from '../../features/current-user/require-feature.ts';
import { CommunicationsPage, searchBodyOf } from '../../features/communications/components/CommunicationsPage.tsx';
import { communicationQueries } from '../../features/communications/communications.queries.ts';
import { communicationsSearch } from '../../features/communications/communications-search.ts';
import { institutionQueries } from '../../features/medical-institutions/medical-institutions.queries.ts';
import { usePageTitle } from '../../frame/page-title.ts';

export const Route = createFileRoute('/_authenticated/crms/$id/communications')({
  staticData: { title: 'コミュニケーション' },
  validateSearch: communicationsSearch,
  beforeLoad: ({ context, params }) => {
    requireFeature(context.user, 'communications');
    if (!isUuid(params.id)) throw new ApiError(404, 'ページが見つかりません');
  },
  loaderDeps: ({ search }) => search,
  loader: ({ context, deps, params }) =>
    Promise.all([
      context.queryClient.ensureQueryData(institutionQueries.summary(context.api, params.id)),
      context.queryClient.ensureQueryData(
        communicationQueries.institutionSearch(context.api, params.id, searchBodyOf(deps)),
      ),
    ]),
  component: InstitutionCommunicationsRoute,
});

function InstitutionCommunicationsRoute() {
  const { id } = Route.useParams();
  const params = Route.useSearch();
  const navigate = Route.useNavigate();
  const { user } = Route.useRouteContext();
  const { api } = useServices();
  const { data: mi } = useSuspenseQuery(institutionQueries.summary(api, id));
  usePageTitle(`${mi.name} コミュニケーション`);
  return (
    <CommunicationsPage
      params={params}
      institution={{ id: mi.id, name: mi.name }}
      currentUserId={user?.id ?? ''}
      onParamsChange={(next) => void navigate({ search: (prev) => ({ ...prev, ...next }) })}
    />
  );
}
