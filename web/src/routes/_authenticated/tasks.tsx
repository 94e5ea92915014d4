import { createFileRoute } from '@tanstack/react-router';
import { enumParam, intParam, type SearchInput } from '../../app/search-params.ts';
import { requireFeature } from '../../features/current-user/require-feature.ts';
import { TasksPage, type TasksParams } from '../../features/tasks/components/TasksPage.tsx';
import { taskQueries } from '../../features/tasks/tasks.queries.ts';

const TasksSearch = (search: SearchInput): TasksParams => ({
  page: intParam(search.page, 1, Number.MAX_SAFE_INTEGER, 1),
  status: enumParam(search.status, ['incomplete', 'finished', 'all'], 'incomplete'),
  sort_by: enumParam(search.sort_by, ['created_at', 'deadline'], 'deadline'),
});

export const Route = createFileRoute('/_authenticated/tasks')({
  staticData: { title: 'タスク' },
  validateSearch: TasksSearch,
  beforeLoad: ({ context }) => requireFeature(context.user, 'tasks'),
  loaderDeps: ({ search }) => search,
  loader: ({ context, deps }) =>
    context.queryClient.ensureQueryData(
      taskQueries.list(context.api, { ...deps, per_page: 20, sort: deps.sort_by === 'deadline' ? 'asc' : 'desc' }),
    ),
  component: TasksRoute,
});

function TasksRoute() {
  const params = Route.useSearch();
  const navigate = Route.useNavigate();
  return (
    <TasksPage params={params} onParamsChange={(next) => void navigate({ search: (prev) => ({ ...prev, ...next }) })} />
  );
}
