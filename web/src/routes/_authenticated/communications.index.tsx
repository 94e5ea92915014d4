import { createFileRoute } from '@tanstack/react-router';
import { requireFeature } from '../../features/current-user/require-feature.ts';
import { CommunicationsPage, searchBodyOf } from '../../features/communications/components/CommunicationsPage.tsx';
import { communicationQueries } from '../../features/communications/communications.queries.ts';
import { communicationsSearch } from '../../features/communications/communications-search.ts';

export const Route = createFileRoute('/_authenticated/communications/')({
  staticData: { title: 'コミュニケーション' },
  validateSearch: communicationsSearch,
  beforeLoad: ({ context }) => requireFeature(context.user, 'communications'),
  loaderDeps: ({ search }) => search,
  // The labels first only when the link asks label conditions: the page sends those a label can meet.
  loader: async ({ context, deps }) => {
    const labels = deps.labels?.length
      ? await context.queryClient.ensureQueryData(communicationQueries.labels(context.api))
      : undefined;
    return context.queryClient.ensureQueryData(communicationQueries.search(context.api, searchBodyOf(deps, labels)));
  },
  component: CommunicationsRoute,
});

function CommunicationsRoute() {
  const params = Route.useSearch();
  const navigate = Route.useNavigate();
  const { user } = Route.useRouteContext();
  return (
    <CommunicationsPage
      params={params}
      currentUserId={user?.id ?? ''}
      onParamsChange={(next) => void navigate({ search: (prev) => ({ ...prev, ...next }) })}
    />
  );
}
