import { useSuspenseQuery } from '@tanstack/react-query';
import { createFileRoute } from '@tanstack/react-router';
import { ApiError } from '../../api/api-errors.ts';
import { isUuid } from '../../app/search-params.ts';
import { useServices } from '../../app/services-context.tsx';
import { requireFeature } from '../../features/current-user/require-feature.ts';
import { institutionQueries } from '../../features/medical-institutions/medical-institutions.queries.ts';
import { InstitutionTasksPage } from '../../features/tasks/components/InstitutionTasksPage.tsx';
import { taskListFiltersOf, taskListQueryOf } from '../../features/tasks/task-list-params.ts';
import { taskQueries } from '../../features/tasks/tasks.queries.ts';
import { usePageTitle } from '../../frame/page-title.ts';

export const Route = createFileRoute('/_authenticated/crms/$id/tasks')({
  staticData: { title: '医療機関のタスク' },
  validateSearch: taskListFiltersOf,
  beforeLoad: ({ context, params }) => {
    requireFeature(context.user, 'tasks');
    if (!isUuid(params.id)) throw new ApiError(404, 'ページが見つかりません');
  },
  loaderDeps: ({ search }) => search,
  loader: ({ context, deps, params }) =>
    Promise.all([
      context.queryClient.ensureQueryData(institutionQueries.summary(context.api, params.id)),
      context.queryClient.ensureQueryData(
        taskQueries.list(context.api, taskListQueryOf(deps, { medical_institution_id: params.id })),
      ),
    ]),
  component: InstitutionTasksRoute,
});

function InstitutionTasksRoute() {
  const { id } = Route.useParams();
  const filters = Route.useSearch();
  const navigate = Route.useNavigate();
  const { user } = Route.useRouteContext();
  const { api } = useServices();
  const { data: mi } = useSuspenseQuery(institutionQueries.summary(api, id));
  usePageTitle(`${mi.name} タスク`);
  return (
    <InstitutionTasksPage
      institution={{ id: mi.id, name: mi.name }}
      filters={filters}
      currentUserId={user?.id ?? ''}
      onFiltersChange={(next) => void navigate({ search: (prev) => ({ ...prev, ...next }) })}
    />
  );
}
