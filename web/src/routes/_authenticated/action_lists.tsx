import { createFileRoute } from '@tanstack/react-router';
import { enumParam, intParam, isUuid, type SearchInput } from '../../app/search-params.ts';
import { requireFeature } from '../../features/current-user/require-feature.ts';
import {
  actionListItemsPerPage,
  actionListQueries,
  actionListsPerPage,
  type ActionListsParams,
} from '../../features/action-lists/action-lists.queries.ts';
import { ActionListsPage } from '../../features/action-lists/components/ActionListsPage.tsx';

const ActionListsSearch = (search: SearchInput): ActionListsParams => ({
  page: intParam(search.page, 1, Number.MAX_SAFE_INTEGER, 1),
  id: isUuid(search.id) ? search.id : undefined,
  item_page: intParam(search.item_page, 1, Number.MAX_SAFE_INTEGER, 1),
  status: enumParam(search.status, ['all', 'actioned', 'not_actioned'], 'all'),
});

export const Route = createFileRoute('/_authenticated/action_lists')({
  staticData: { title: 'アクションリスト' },
  validateSearch: ActionListsSearch,
  beforeLoad: ({ context }) => requireFeature(context.user, 'action_lists'),
  loaderDeps: ({ search }) => search,
  loader: ({ context, deps }) =>
    Promise.all([
      context.queryClient.ensureQueryData(
        actionListQueries.lists(context.api, { page: deps.page, per_page: actionListsPerPage }),
      ),
      deps.id && context.queryClient.ensureQueryData(actionListQueries.detail(context.api, deps.id)),
      // A list deleted since the link was made: the page says so instead of failing.
      deps.id &&
        context.queryClient
          .ensureQueryData(
            actionListQueries.items(context.api, deps.id, {
              page: deps.item_page,
              per_page: actionListItemsPerPage,
              status: deps.status,
            }),
          )
          .catch(() => undefined),
    ]),
  component: ActionListsRoute,
});

function ActionListsRoute() {
  const params = Route.useSearch();
  const navigate = Route.useNavigate();
  return (
    <ActionListsPage
      params={params}
      onParamsChange={(next) => void navigate({ search: (prev) => ({ ...prev, ...next }) })}
    />
  );
}
