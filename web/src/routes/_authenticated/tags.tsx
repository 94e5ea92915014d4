import { createFileRoute } from '@tanstack/react-router';
import { requireFeature } from '../../features/require-feature.ts';
import { TagsPage } from '../../features/tags/components/TagsPage.tsx';
import { tagQueries, type TagListParams } from '../../features/tags/tags.queries.ts';

/** Bad or missing values fall back to the defaults instead of failing the page. */
function validateTagsSearch(search: Record<string, unknown>): TagListParams {
  const int = (value: unknown, fallback: number, max: number) => {
    const n = Number(value);
    return Number.isInteger(n) && n >= 1 && n <= max ? n : fallback;
  };
  return {
    page: int(search.page, 1, Number.MAX_SAFE_INTEGER),
    per_page: int(search.per_page, 20, 100),
    sort: search.sort === 'desc' ? 'desc' : 'asc',
  };
}

export const Route = createFileRoute('/_authenticated/tags')({
  staticData: { title: 'タグ管理' },
  validateSearch: validateTagsSearch,
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
