import type { ReferralGroupingKey } from '@renkei/contracts';
import { queryOptions } from '@tanstack/react-query';
import type { z } from 'zod';
import type { ApiClient } from '../../api/api-client.ts';
import { comparisonOf, type Period } from './analysis-periods.ts';
import type { AnalysisFilters } from './analysis-search.ts';

/** Facts of a referral a breakdown groups by (`POST /referral_reports/aggregation_results`), at most three. */
export type Grouping = z.infer<typeof ReferralGroupingKey>[];

/** Rankings are complete up to this many institutions; beyond it a change is shown only where both sides rank. */
export const rankingLimit = 500;

/**
 * Figures stay fresh for a minute: the route's loader fetches them before the page mounts, and stale on
 * mount they were all fetched a second time. Figures change with imports, not by the second: within the
 * minute a return to the page shows what it showed, and a reload asks again. What this client learns has
 * changed their data (an import's end, a write) makes them stale at once: `invalidate-figures.ts`.
 */
export const answered = { staleTime: 60_000 } as const;

export function periodOf(f: AnalysisFilters): Period {
  return { from: f.from, to: f.to };
}

/** Visit effectiveness needs a comparison: with none chosen it compares with the period just before. */
export function effectivenessComparison(f: AnalysisFilters): Period {
  return comparisonOf(periodOf(f), f.cmp) ?? comparisonOf(periodOf(f), 'previous')!;
}

function chartBody(f: AnalysisFilters) {
  return {
    period: periodOf(f),
    comparison_period: comparisonOf(periodOf(f), f.cmp),
    period_unit: f.unit,
    own_department_ids: f.own,
    facility_type_ids: f.ft,
    tag_ids: f.tags,
    ...area(f),
  };
}

/** The area filter, sent only when chosen (an addition to the spec's bodies). */
function area(f: AnalysisFilters) {
  return { ...(f.pref.length ? { prefectures: f.pref } : {}), ...(f.city.length ? { cities: f.city } : {}) };
}

function aggregationBody(f: AnalysisFilters, period: Period, by: Grouping) {
  return {
    filter_conditions: { period, own_department_ids: f.own, facility_type_ids: f.ft, tag_ids: f.tags, ...area(f) },
    grouping_conditions: by,
  };
}

function rankingBody(f: AnalysisFilters, period: Period) {
  return {
    period,
    own_department_ids: f.own,
    facility_type_ids: f.ft,
    tag_ids: f.tags,
    limit: rankingLimit,
    ...area(f),
  };
}

export const dataAnalysisQueries = {
  all: ['data-analysis'] as const,
  /** Every figure of the page, apart from the filter's choices: what new referral data makes stale. */
  figures: () => [...dataAnalysisQueries.all, 'figures'] as const,
  /** The only figures communications move (visited institutions against the others). */
  effectivenessFigures: () => [...dataAnalysisQueries.figures(), 'effectiveness'] as const,
  /** The filter's tag choices: the first hundred (the API's page size), which covers a tenant's tags. */
  tags: (api: ApiClient) =>
    queryOptions({
      queryKey: [...dataAnalysisQueries.all, 'tags'] as const,
      queryFn: ({ signal }) => api.listTags({ query: { page: 1, per_page: 100 }, signal }),
      staleTime: 60_000,
    }),
  /** The first and last day of the uploaded data: this 年度 to date ends at its last day (`yearToDateEnd`). */
  coverage: (api: ApiClient) =>
    queryOptions({
      queryKey: [...dataAnalysisQueries.figures(), 'coverage'] as const,
      queryFn: ({ signal }) => api.dataCoverage({ signal }),
      ...answered,
    }),
  /** The period against the comparison period bucket by bucket, in the chosen unit. */
  referralsTrend: (api: ApiClient, f: AnalysisFilters) => {
    const body = chartBody(f);
    return queryOptions({
      queryKey: [...dataAnalysisQueries.figures(), 'referrals-trend', body] as const,
      queryFn: ({ signal }) => api.referralsComparison({ body, signal }),
      ...answered,
    });
  },
  reverseReferralsMonthly: (api: ApiClient, f: AnalysisFilters) => {
    const body = chartBody(f);
    return queryOptions({
      queryKey: [...dataAnalysisQueries.figures(), 'reverse-referrals-monthly', body] as const,
      queryFn: ({ signal }) => api.reverseReferralsComparisonMonthly({ body, signal }),
      ...answered,
    });
  },
  bothReferrals: (api: ApiClient, f: AnalysisFilters) => {
    const body = chartBody(f);
    return queryOptions({
      queryKey: [...dataAnalysisQueries.figures(), 'both-referrals', body] as const,
      queryFn: ({ signal }) => api.bothReferralsComparison({ body, signal }),
      ...answered,
    });
  },
  /** The group's institutions side by side (all of the tenant's group: no ids sent), totals against the comparison. */
  groupComparison: (api: ApiClient, f: AnalysisFilters) => {
    const body = chartBody(f);
    return queryOptions({
      queryKey: [...dataAnalysisQueries.figures(), 'group-comparison', body] as const,
      queryFn: ({ signal }) => api.groupReferralsComparison({ body, signal }),
      ...answered,
    });
  },
  groupTrend: (api: ApiClient, f: AnalysisFilters) => {
    const body = chartBody(f);
    return queryOptions({
      queryKey: [...dataAnalysisQueries.figures(), 'group-trend', body] as const,
      queryFn: ({ signal }) => api.groupReferrals({ body, signal }),
      ...answered,
    });
  },
  /** One grouping over one period; the page asks it for the period and the comparison period. */
  aggregation: (api: ApiClient, f: AnalysisFilters, period: Period, by: Grouping) => {
    const body = aggregationBody(f, period, by);
    return queryOptions({
      queryKey: [...dataAnalysisQueries.figures(), 'aggregation', body] as const,
      queryFn: ({ signal }) => api.referralReportsAggregationResults({ body, signal }),
      ...answered,
    });
  },
  ranking: (api: ApiClient, f: AnalysisFilters, period: Period) => {
    const body = rankingBody(f, period);
    return queryOptions({
      queryKey: [...dataAnalysisQueries.figures(), 'ranking', body] as const,
      queryFn: ({ signal }) => api.referralTotalCountRanking({ body, signal }),
      ...answered,
    });
  },
  effectiveness: (api: ApiClient, f: AnalysisFilters) => {
    const body = {
      period: periodOf(f),
      comparison_period: effectivenessComparison(f),
      own_department_ids: f.own,
      facility_type_ids: f.ft,
      tag_ids: f.tags,
      ...area(f),
    };
    return queryOptions({
      queryKey: [...dataAnalysisQueries.effectivenessFigures(), body] as const,
      queryFn: ({ signal }) => api.effectivenessVerification({ body, signal }),
      ...answered,
    });
  },
};
