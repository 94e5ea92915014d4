import { createFileRoute } from '@tanstack/react-router';
import { enumParam, type SearchInput } from '../../app/search-params.ts';
import { requireFeature } from '../../features/current-user/require-feature.ts';
import { TasksPage, tasksScopeOf, type TasksParams } from '../../features/tasks/components/TasksPage.tsx';
import { taskListFiltersOf, taskListQueryOf } from '../../features/tasks/task-list-params.ts';
import { taskQueries } from '../../features/tasks/tasks.queries.ts';

const TasksSearch = (search: SearchInput): TasksParams => ({
  ...taskListFiltersOf(search),
  assignee: enumParam(search.assignee, ['mine', 'all'], 'mine'),
});

export const Route = createFileRoute('/_authenticated/tasks')({
  staticData: { title: 'タスク' },
  validateSearch: TasksSearch,
  beforeLoad: ({ context }) => requireFeature(context.user, 'tasks'),
  loaderDeps: ({ search }) => search,
  loader: ({ context, deps: { assignee, ...filters } }) =>
    context.queryClient.ensureQueryData(
      taskQueries.list(context.api, taskListQueryOf(filters, tasksScopeOf(assignee, context.user?.id ?? ''))),
    ),
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
