import { createFileRoute } from '@tanstack/react-router';
import { enumParam, type SearchInput } from '../../app/search-params.ts';
import { ApiError } from '../../api/api-errors.ts';
import { requireFeature } from '../../features/require-feature.ts';
import { CrmPage } from '../../features/medical-institutions/components/CrmPage.tsx';
import { PartnerChart } from '../../features/medical-institutions/components/PartnerChart.tsx';
import { institutionQueries } from '../../features/medical-institutions/medical-institutions.queries.ts';

const CrmSearch = (search: SearchInput): { view?: 'karte' } => {
  const view = enumParam(search.view, ['karte'], undefined);
  return view ? { view } : {};
};

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const Route = createFileRoute('/_authenticated/crms/$id/')({
  staticData: { title: '医療機関' },
  validateSearch: CrmSearch,
  beforeLoad: ({ context, params }) => {
    requireFeature(context.user, 'medical_institutions_search');
    // A malformed id can name no institution: the 404 page, without asking the server.
    if (!uuid.test(params.id)) throw new ApiError(404, 'ページが見つかりません');
  },
  // An unknown id (or another tenant's) answers 404 here, which the route shows as the 404 page.
  loader: ({ context, params }) =>
    context.queryClient.ensureQueryData(institutionQueries.summary(context.api, params.id)),
  component: CrmRoute,
});

function CrmRoute() {
  const { id } = Route.useParams();
  const { view } = Route.useSearch();
  return view === 'karte' ? <PartnerChart id={id} /> : <CrmPage id={id} />;
}
