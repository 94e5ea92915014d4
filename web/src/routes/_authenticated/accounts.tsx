import { createFileRoute } from '@tanstack/react-router';
import { intParam, type SearchInput } from '../../app/search-params.ts';
import { AccountsPage } from '../../features/accounts/components/AccountsPage.tsx';
import { accountQueries } from '../../features/accounts/accounts.queries.ts';
import { requireFeature } from '../../features/current-user/require-feature.ts';
import { requireOwner } from '../../features/current-user/require-owner.ts';

const AccountsSearch = (search: SearchInput) => ({
  page: intParam(search.page, 1, Number.MAX_SAFE_INTEGER, 1),
  per_page: intParam(search.per_page, 1, 100, 20),
});

export const Route = createFileRoute('/_authenticated/accounts')({
  staticData: { title: 'アカウント管理' },
  validateSearch: AccountsSearch,
  beforeLoad: ({ context }) => {
    requireFeature(context.user, 'accounts');
    requireOwner(context.user);
  },
  loaderDeps: ({ search }) => search,
  loader: ({ context, deps }) => context.queryClient.ensureQueryData(accountQueries.list(context.api, deps)),
  component: AccountsRoute,
});

function AccountsRoute() {
  const params = Route.useSearch();
  const navigate = Route.useNavigate();
  const { user } = Route.useRouteContext();
  return (
    <AccountsPage
      params={params}
      selfId={user.id}
      onParamsChange={(next) => void navigate({ search: (prev) => ({ ...prev, ...next }) })}
    />
  );
}
