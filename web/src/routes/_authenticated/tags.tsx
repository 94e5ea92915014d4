import { createFileRoute } from '@tanstack/react-router';
import { enumParam, intParam, type SearchInput } from '../../app/search-params.ts';
import { requireFeature } from '../../features/current-user/require-feature.ts';
import { TagsPage } from '../../features/tags/components/TagsPage.tsx';
import { tagQueries } from '../../features/tags/tags.queries.ts';

const TagsSearch = (search: SearchInput) => ({
  page: intParam(search.page, 1, Number.MAX_SAFE_INTEGER, 1),
  per_page: intParam(search.per_page, 1, 100, 20),
  sort: enumParam(search.sort, ['asc', 'desc'], 'asc'),
});

export const Route = createFileRoute('/_authenticated/tags')({
  staticData: { title: 'タグ管理' },
  validateSearch: TagsSearch,
  beforeLoad: ({ context }) => requireFeature(context.user, 'tags'),
  loaderDeps: ({ search }) => search,
  loader: ({ context, deps }) =>
    Promise.all([
      context.queryClient.ensureQueryData(tagQueries.list(context.api, deps)),
      context.queryClient.ensureQueryData(tagQueries.groups(context.api)),
    ]),
  component: TagsRoute,
});

function TagsRoute() {
  const params = Route.useSearch();
  const navigate = Route.useNavigate();
  return (
    <TagsPage params={params} onParamsChange={(next) => void navigate({ search: (prev) => ({ ...prev, ...next }) })} />
  );
}
