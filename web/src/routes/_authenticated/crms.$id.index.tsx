import { useSuspenseQuery } from '@tanstack/react-query';
import { createFileRoute } from '@tanstack/react-router';
import { enumParam, type SearchInput } from '../../app/search-params.ts';
import { ApiError } from '../../api/api-errors.ts';
import { useServices } from '../../app/services-context.tsx';
import { requireFeature } from '../../features/current-user/require-feature.ts';
import { CrmPage } from '../../features/medical-institutions/components/CrmPage.tsx';
import { PartnerChart } from '../../features/medical-institutions/components/PartnerChart.tsx';
import { institutionQueries } from '../../features/medical-institutions/medical-institutions.queries.ts';
import { todayInJapan } from '../../features/data-analysis/analysis-periods.ts';
import { referralFiguresPeriod } from '../../features/referrals/referral-figures.ts';
import { referralQueries } from '../../features/referrals/referrals.queries.ts';
import { usePageTitle } from '../../frame/page-title.ts';

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
  loader: ({ context, params }) => {
    // Both views show the referral figures: their request goes out beside the summary, not after it.
    void context.queryClient.prefetchQuery(
      referralQueries.monthly(context.api, params.id, referralFiguresPeriod(todayInJapan())),
    );
    return context.queryClient.ensureQueryData(institutionQueries.summary(context.api, params.id));
  },
  component: CrmRoute,
});

/** The page title is the institution's name (docs/decisions.md); the static title covers loading and errors. */
function crmPageTitle(name: string, view: 'karte' | undefined): string {
  // Printing takes the document title as the header and PDF file name: say which sheet it is.
  return view === 'karte' ? `${name} 連携先カルテ` : name;
}

function CrmRoute() {
  const { id } = Route.useParams();
  const { view } = Route.useSearch();
  const { api } = useServices();
  const { data: mi } = useSuspenseQuery(institutionQueries.summary(api, id));
  usePageTitle(crmPageTitle(mi.name, view));
  return view === 'karte' ? <PartnerChart id={id} /> : <CrmPage id={id} />;
}
