import type { FeatureKey } from '@renkei/contracts';
import type { QueryClient } from '@tanstack/react-query';
import type { ApiClient } from '../../api/api-client.ts';
import { referenceDataQueries } from '../reference-data/reference-data.queries.ts';
import { comparisonOf, periodProblem } from './analysis-periods.ts';
import type { AnalysisFilters } from './analysis-search.ts';
import { dataAnalysisQueries, periodOf, type Grouping } from './data-analysis.queries.ts';
import { defaultVisitOptions, visitChartQueries } from './visit-charts.queries.ts';

const breakdowns: Grouping[] = [['own_department'], ['referral_department'], ['prefecture', 'city'], ['facility_type']];

/**
 * Starts every call the page's first render asks (the same queries, so the panels find them in flight or
 * answered): its own panels, the visit panel with its default choices, and the filter bar's and the
 * panels' reference data. Settles when all have answered; never rejects (a failure is the panel's to
 * show when it renders). The group tab asks its own calls.
 */
export function prefetchDataAnalysis(
  queryClient: QueryClient,
  api: ApiClient,
  f: AnalysisFilters,
  features: readonly FeatureKey[],
): Promise<void> {
  const calls: Promise<void>[] = [];
  const start = (prefetch: Promise<void>) => calls.push(prefetch);
  const period = periodOf(f);
  const comparison = comparisonOf(period, f.cmp);
  start(queryClient.prefetchQuery(referenceDataQueries.tenant(api)));
  start(queryClient.prefetchQuery(referenceDataQueries.ownDepartments(api)));
  start(queryClient.prefetchQuery(referenceDataQueries.facilityTypeGroups(api)));
  if (features.includes('tags')) start(queryClient.prefetchQuery(dataAnalysisQueries.tags(api)));
  // A period the API refuses is said once by the page, not asked.
  if (periodProblem(f)) return Promise.all(calls).then(() => undefined);
  start(queryClient.prefetchQuery(dataAnalysisQueries.referralsTrend(api, f)));
  start(queryClient.prefetchQuery(dataAnalysisQueries.ranking(api, f, period)));
  if (comparison) start(queryClient.prefetchQuery(dataAnalysisQueries.ranking(api, f, comparison)));
  if (features.includes('report'))
    for (const by of breakdowns) {
      start(queryClient.prefetchQuery(dataAnalysisQueries.aggregation(api, f, period, by)));
      if (comparison) start(queryClient.prefetchQuery(dataAnalysisQueries.aggregation(api, f, comparison, by)));
    }
  if (features.includes('reverse_referrals')) {
    start(queryClient.prefetchQuery(dataAnalysisQueries.reverseReferralsMonthly(api, f)));
    start(queryClient.prefetchQuery(dataAnalysisQueries.bothReferrals(api, f)));
  }
  if (features.includes('communications')) {
    start(queryClient.prefetchQuery(dataAnalysisQueries.effectiveness(api, f)));
    start(queryClient.prefetchQuery(visitChartQueries.staffs(api)));
    start(queryClient.prefetchQuery(visitChartQueries.visits(api, f, defaultVisitOptions)));
    start(queryClient.prefetchQuery(visitChartQueries.doctorInterviewRates(api, f, defaultVisitOptions)));
    start(queryClient.prefetchQuery(visitChartQueries.nextActionRates(api, f, defaultVisitOptions)));
  }
  return Promise.all(calls).then(() => undefined);
}
