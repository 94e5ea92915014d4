import { createFileRoute } from '@tanstack/react-router';
import { requireFeature } from '../../features/current-user/require-feature.ts';
import { institutionQueries } from '../../features/medical-institutions/medical-institutions.queries.ts';
import { TasksPage } from '../../features/tasks/components/TasksPage.tsx';
import { taskListQueryOf, tasksParamsOf, tasksScopeOf } from '../../features/tasks/task-list-params.ts';
import { taskQueries } from '../../features/tasks/tasks.queries.ts';

export const Route = createFileRoute('/_authenticated/tasks')({
  staticData: { title: 'タスク' },
  validateSearch: tasksParamsOf,
  beforeLoad: ({ context }) => requireFeature(context.user, 'tasks'),
  loaderDeps: ({ search }) => search,
  loader: ({ context, deps }) =>
    Promise.all([
      context.queryClient.ensureQueryData(
        taskQueries.list(context.api, taskListQueryOf(deps, tasksScopeOf(deps, context.user?.id ?? ''))),
      ),
      // The picked institution's name for the filter; an unknown one only leaves the name out.
      deps.medical_institution_id &&
        context.queryClient.prefetchQuery(institutionQueries.summary(context.api, deps.medical_institution_id)),
    ]),
  component: TasksRoute,
});

function TasksRoute() {
  const params = Route.useSearch();
  const navigate = Route.useNavigate();
  const { user } = Route.useRouteContext();
  return (
    <TasksPage
      params={params}
      currentUserId={user?.id ?? ''}
      onParamsChange={(next) => void navigate({ search: (prev) => ({ ...prev, ...next }) })}
    />
  );
}
