import { createFileRoute } from '@tanstack/react-router';
import { enumParam, intParam, type SearchInput } from '../../app/search-params.ts';
import { requireFeature } from '../../features/current-user/require-feature.ts';
import { EmailsPage } from '../../features/emails/components/EmailsPage.tsx';
import { emailQueries } from '../../features/emails/emails.queries.ts';

const EmailsSearch = (search: SearchInput) => ({
  page: intParam(search.page, 1, Number.MAX_SAFE_INTEGER, 1),
  per_page: intParam(search.per_page, 1, 100, 20),
  status: enumParam(search.status, ['unsent', 'sent'], 'unsent'),
});

export const Route = createFileRoute('/_authenticated/emails/')({
  staticData: { title: 'HTMLメール' },
  validateSearch: EmailsSearch,
  beforeLoad: ({ context }) => requireFeature(context.user, 'emails'),
  loaderDeps: ({ search }) => search,
  loader: ({ context, deps }) => context.queryClient.ensureQueryData(emailQueries.list(context.api, deps)),
  component: EmailsRoute,
});

function EmailsRoute() {
  const params = Route.useSearch();
  const navigate = Route.useNavigate();
  return (
    <EmailsPage
      params={params}
      onParamsChange={(next) => void navigate({ search: (prev) => ({ ...prev, ...next }) })}
    />
  );
}
