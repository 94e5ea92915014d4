import { createFileRoute } from '@tanstack/react-router';
import { enumParam, intParam, isCalendarDay, isUuid, type SearchInput } from '../../app/search-params.ts';
import { requireFeature } from '../../features/current-user/require-feature.ts';
import { VocsPage, vocListQueryOf, type VocsParams } from '../../features/vocs/components/VocsPage.tsx';
import { vocQueries } from '../../features/vocs/vocs.queries.ts';

const VocsSearch = (search: SearchInput): VocsParams => ({
  page: intParam(search.page, 1, Number.MAX_SAFE_INTEGER, 1),
  status: enumParam(search.status, ['NOT_STARTED', 'IN_PROGRESS', 'COMPLETED', 'NO_ACTION_REQUIRED'], undefined),
  priority: enumParam(search.priority, ['LOW', 'MIDDLE', 'HIGH'], undefined),
  group: isUuid(search.group) ? search.group : undefined,
  communication: isUuid(search.communication) ? search.communication : undefined,
  institution: isUuid(search.institution) ? search.institution : undefined,
  from: isCalendarDay(search.from) ? search.from : undefined,
  to: isCalendarDay(search.to) ? search.to : undefined,
});

export const Route = createFileRoute('/_authenticated/vocs')({
  staticData: { title: '連携先の声' },
  validateSearch: VocsSearch,
  beforeLoad: ({ context }) => requireFeature(context.user, 'communications'),
  loaderDeps: ({ search }) => search,
  loader: ({ context, deps }) =>
    Promise.all([
      context.queryClient.ensureQueryData(vocQueries.list(context.api, vocListQueryOf(deps))),
      context.queryClient.ensureQueryData(vocQueries.groups(context.api)),
    ]),
  component: VocsRoute,
});

function VocsRoute() {
  const params = Route.useSearch();
  const navigate = Route.useNavigate();
  const { user } = Route.useRouteContext();
  return (
    <VocsPage
      params={params}
      isOwner={user?.role === 'owner'}
      onParamsChange={(next) => void navigate({ search: (prev) => ({ ...prev, ...next }) })}
    />
  );
}
