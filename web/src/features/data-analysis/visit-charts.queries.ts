import type { ChartData } from '@renkei/contracts';
import { queryOptions } from '@tanstack/react-query';
import type { ApiClient } from '../../api/api-client.ts';
import type { AnalysisFilters } from './analysis-search.ts';
import { answered, periodOf } from './data-analysis.queries.ts';

/** The visit types a chart counts; an empty list is both (`communication_types`, an addition to the spec). */
export type VisitTypeFilter = 'all' | 'visit' | 'new_visit';

export interface VisitChartOptions {
  userIds: string[];
  type: VisitTypeFilter;
}

/** Every staff member, both visit types: what the panel shows until its own choices change. */
export const defaultVisitOptions: VisitChartOptions = { userIds: [], type: 'all' };

/**
 * The body of the visit charts from the page's filters: the period, its unit and the institution filters
 * (facility type, tags, area). Own departments do not apply to communications and are not sent.
 */
function visitChartBody(f: AnalysisFilters, o: VisitChartOptions) {
  return {
    period: periodOf(f),
    period_unit: f.unit,
    facility_type_ids: f.ft,
    tag_ids: f.tags,
    ...(f.pref.length ? { prefectures: f.pref } : {}),
    ...(f.city.length ? { cities: f.city } : {}),
    user_ids: o.userIds,
    communication_types: o.type === 'all' ? [] : [o.type],
  };
}

export const visitChartQueries = {
  all: ['visit-charts'] as const,
  /** The three charts, not the staff list: what a visit written or imported makes stale. */
  figures: () => [...visitChartQueries.all, 'figures'] as const,
  visits: (api: ApiClient, f: AnalysisFilters, o: VisitChartOptions) => {
    const body = visitChartBody(f, o);
    return queryOptions({
      queryKey: [...visitChartQueries.figures(), 'visits', body] as const,
      queryFn: ({ signal }): Promise<ChartData> => api.visits({ body, signal }),
      ...answered,
    });
  },
  doctorInterviewRates: (api: ApiClient, f: AnalysisFilters, o: VisitChartOptions) => {
    const body = visitChartBody(f, o);
    return queryOptions({
      queryKey: [...visitChartQueries.figures(), 'doctor-interview-rates', body] as const,
      queryFn: ({ signal }): Promise<ChartData> => api.visitsDoctorInterviewRates({ body, signal }),
      ...answered,
    });
  },
  nextActionRates: (api: ApiClient, f: AnalysisFilters, o: VisitChartOptions) => {
    const body = visitChartBody(f, o);
    return queryOptions({
      queryKey: [...visitChartQueries.figures(), 'next-action-rates', body] as const,
      queryFn: ({ signal }): Promise<ChartData> => api.visitsNextActionRates({ body, signal }),
      ...answered,
    });
  },
  staffs: (api: ApiClient) =>
    queryOptions({
      queryKey: [...visitChartQueries.all, 'staffs'] as const,
      queryFn: ({ signal }) => api.listStaffs({ query: {}, signal }),
      staleTime: 5 * 60_000,
    }),
};

/** One row per bucket of the three charts' figures, and the period's totals. */
export interface VisitRow {
  label: string;
  visit: number;
  new_visit: number;
  visits: number;
  doctor_interviews: number;
  doctor_interview_rate: number | null;
  next_actions: number;
  next_action_rate: number | null;
}

const valuesOf = (chart: ChartData, key: string) => chart.series.find((s) => s.key === key)?.values ?? [];

export function visitRows(visits: ChartData, doctors: ChartData, actions: ChartData): VisitRow[] {
  return visits.labels.map((label, i) => ({
    label,
    visit: valuesOf(visits, 'visit')[i] ?? 0,
    new_visit: valuesOf(visits, 'new_visit')[i] ?? 0,
    visits: valuesOf(visits, 'visits')[i] ?? 0,
    doctor_interviews: valuesOf(doctors, 'doctor_interviews')[i] ?? 0,
    doctor_interview_rate: valuesOf(doctors, 'doctor_interview_rate')[i] ?? null,
    next_actions: valuesOf(actions, 'next_actions')[i] ?? 0,
    next_action_rate: valuesOf(actions, 'next_action_rate')[i] ?? null,
  }));
}
