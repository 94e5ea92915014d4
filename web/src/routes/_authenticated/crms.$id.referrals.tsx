import { createFileRoute } from '@tanstack/react-router';
import { ApiError } from '../../api/api-errors.ts';
import { requireFeature } from '../../features/current-user/require-feature.ts';
import { institutionQueries } from '../../features/medical-institutions/medical-institutions.queries.ts';
import { InstitutionReferralsPage } from '../../features/referrals/components/InstitutionReferralsPage.tsx';
import { lastThreeFiscalYears, referralQueries } from '../../features/referrals/referrals.queries.ts';

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const Route = createFileRoute('/_authenticated/crms/$id/referrals')({
  staticData: { title: '紹介実績' },
  beforeLoad: ({ context, params }) => {
    requireFeature(context.user, 'medical_institutions_search');
    if (!uuid.test(params.id)) throw new ApiError(404, 'ページが見つかりません');
  },
  loader: ({ context, params }) =>
    Promise.all([
      context.queryClient.ensureQueryData(institutionQueries.summary(context.api, params.id)),
      context.queryClient.prefetchQuery(referralQueries.monthly(context.api, params.id, lastThreeFiscalYears())),
    ]),
  component: InstitutionReferralsRoute,
});

function InstitutionReferralsRoute() {
  const { id } = Route.useParams();
  return <InstitutionReferralsPage id={id} />;
}
