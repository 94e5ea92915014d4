import { createFileRoute } from '@tanstack/react-router';
import { z } from 'zod';
import { requireFeature } from '../../features/require-feature.ts';
import { TagsPage } from '../../features/tags/components/TagsPage.tsx';
import { tagQueries } from '../../features/tags/tags.queries.ts';

const TagsSearch = z.object({
  page: z.coerce.number().int().min(1).catch(1).default(1),
  per_page: z.coerce.number().int().min(1).max(100).catch(20).default(20),
  sort: z.enum(['asc', 'desc']).catch('asc').default('asc'),
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
