import { queryOptions } from '@tanstack/react-query';
import type { Dashboard, DashboardInput, ReportDefinition, ReportKind } from '@renkei/contracts';
import type { z } from 'zod';
import type { ApiClient } from '../../api/api-client.ts';
import { useApiMutation } from '../../api/useApiMutation.ts';
import { reportApi } from '../reports/report-kinds.ts';
import { dashboardResultBody, dashboardRowsPerReport } from './dashboard-report.ts';

export type DashboardInputValues = z.input<typeof DashboardInput>;

const dashboardsPerPage = 20;
/** Reports offered when placing one on a dashboard (a tenant's reports of a kind fit on one page). */
const reportChoicesPerKind = 100;

/** One key factory for the dashboards; their mutations invalidate only these keys. */
export const dashboardQueries = {
  all: ['dashboards'] as const,
  list: (api: ApiClient, params: { page: number }) =>
    queryOptions({
      queryKey: [...dashboardQueries.all, 'list', params] as const,
      queryFn: ({ signal }) =>
        api.listDashboards({ query: { page: params.page, per_page: dashboardsPerPage }, signal }),
    }),
  detail: (api: ApiClient, id: string) =>
    queryOptions({
      queryKey: [...dashboardQueries.all, 'detail', id] as const,
      queryFn: ({ signal }) => api.getDashboard({ params: { id }, signal }),
    }),
  /** The tenant's reports of a kind, to choose from. */
  reportChoices: (api: ApiClient, kind: ReportKind) =>
    queryOptions({
      queryKey: [...dashboardQueries.all, 'report-choices', kind] as const,
      queryFn: ({ signal }) =>
        reportApi(api, kind).listDefinitions({
          query: { page: 1, per_page: reportChoicesPerKind, sort_by: 'create_date', sort: 'desc' },
          signal,
        }),
    }),
  /**
   * One report of a dashboard run as the dashboard shows it (its department and label applied). The
   * dashboard's and the report's versions are in the key: an edit of either runs it again. While another
   * page of the same run loads, the card keeps showing the page it has (not the rows of an older version).
   */
  result: (
    api: ApiClient,
    dashboard: Dashboard,
    kind: ReportKind,
    definition: ReportDefinition | undefined,
    page: number,
  ) => {
    const key = [
      ...dashboardQueries.all,
      'result',
      dashboard.id,
      dashboard.version,
      kind,
      definition?.id ?? null,
      definition?.version ?? null,
      page,
    ] as const;
    return queryOptions({
      queryKey: key,
      queryFn: ({ signal }) =>
        reportApi(api, kind).results({
          body: dashboardResultBody(dashboard, kind, definition!, page, dashboardRowsPerReport),
          signal,
        }),
      // Runs once the report's definition is read (the card reads it first).
      enabled: definition !== undefined,
      placeholderData: (previous, previousQuery) =>
        previousQuery?.queryKey.slice(0, -1).join() === key.slice(0, -1).join() ? previous : undefined,
    });
  },
};

export const useCreateDashboard = () =>
  useApiMutation((api, body: DashboardInputValues) => api.createDashboard({ body }), [dashboardQueries.all]);

export const useUpdateDashboard = () =>
  useApiMutation(
    (api, { id, version, body }: { id: string; version: number; body: DashboardInputValues }) =>
      api.updateDashboard({ params: { id }, body, ifMatch: version }),
    [dashboardQueries.all],
  );

export const useDeleteDashboard = () =>
  useApiMutation(
    (api, { id, version }: { id: string; version: number }) =>
      api.deleteDashboard({ params: { id }, ifMatch: version }),
    [dashboardQueries.all],
  );
