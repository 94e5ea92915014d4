import { createFileRoute } from '@tanstack/react-router';
import { ApiError } from '../../api/api-errors.ts';
import type { EmailReportFilter } from '@renkei/contracts';
import { enumParam, intParam, isUuid, type SearchInput } from '../../app/search-params.ts';
import { requireFeature } from '../../features/current-user/require-feature.ts';
import { EmailReportsPage } from '../../features/emails/components/EmailReportsPage.tsx';
import { emailQueries } from '../../features/emails/emails.queries.ts';
import { emailReportFilters } from '../../features/emails/email-report-filters.ts';

export const Route = createFileRoute('/_authenticated/emails/$id/reports')({
  staticData: { title: '配信レポート' },
  validateSearch: (search: SearchInput): { page: number; filter?: EmailReportFilter } => {
    const filter = enumParam(search.filter, emailReportFilters, undefined);
    return { page: intParam(search.page, 1, Number.MAX_SAFE_INTEGER, 1), ...(filter ? { filter } : {}) };
  },
  beforeLoad: ({ context, params }) => {
    requireFeature(context.user, 'emails');
    if (!isUuid(params.id)) throw new ApiError(404, 'ページが見つかりません');
  },
  loaderDeps: ({ search }) => search,
  loader: ({ context, params, deps }) =>
    Promise.all([
      context.queryClient.ensureQueryData(emailQueries.detail(context.api, params.id)),
      context.queryClient.ensureQueryData(emailQueries.stats(context.api, params.id)),
      context.queryClient.ensureQueryData(emailQueries.reports(context.api, params.id, deps.page, deps.filter)),
    ]),
  component: EmailReportsRoute,
});

function EmailReportsRoute() {
  const { id } = Route.useParams();
  const { page, filter } = Route.useSearch();
  const navigate = Route.useNavigate();
  return <EmailReportsPage id={id} page={page} filter={filter} onChange={(search) => void navigate({ search })} />;
}
