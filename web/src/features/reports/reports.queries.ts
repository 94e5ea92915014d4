import { keepPreviousData, queryOptions } from '@tanstack/react-query';
import type { ReportAlertSettings, ReportDefinitionInput, ReportKind } from '@renkei/contracts';
import type { z } from 'zod';
import type { ApiClient } from '../../api/api-client.ts';
import { useApiMutation } from '../../api/useApiMutation.ts';
import { reportApi } from './report-kinds.ts';

export type ReportDefinitionValues = z.input<typeof ReportDefinitionInput>;
type ReportListSortBy = 'create_date' | 'alert_date';

export interface ReportListParams {
  page: number;
  sort_by: ReportListSortBy;
}

const reportsPerPage = 20;
/** Rows of a result page on screen; the CSV export reads 1000 at a time. */
export const resultRowsPerPage = 100;
export const exportRowsPerPage = 1000;

/** One key factory for every kind; a kind's mutations invalidate only that kind's keys. */
export const reportQueries = {
  all: ['reports'] as const,
  kind: (kind: ReportKind) => [...reportQueries.all, kind] as const,
  list: (api: ApiClient, kind: ReportKind, params: ReportListParams) =>
    queryOptions({
      queryKey: [...reportQueries.kind(kind), 'list', params] as const,
      queryFn: ({ signal }) =>
        reportApi(api, kind).listDefinitions({
          query: { page: params.page, per_page: reportsPerPage, sort_by: params.sort_by, sort: 'desc' },
          signal,
        }),
    }),
  detail: (api: ApiClient, kind: ReportKind, id: string) =>
    queryOptions({
      queryKey: [...reportQueries.kind(kind), 'detail', id] as const,
      queryFn: ({ signal }) => reportApi(api, kind).getDefinition({ params: { id }, signal }),
    }),
  items: (api: ApiClient, kind: ReportKind) =>
    queryOptions({
      queryKey: [...reportQueries.kind(kind), 'items'] as const,
      queryFn: ({ signal }) => reportApi(api, kind).itemDefinitions({ signal }),
      staleTime: 5 * 60_000,
    }),
  /**
   * A saved definition's result page. The version is in the key: after an edit the page waits for the
   * new definition's rows instead of showing the old ones meanwhile.
   */
  result: (api: ApiClient, kind: ReportKind, id: string, version: number, page: number) =>
    queryOptions({
      queryKey: [...reportQueries.kind(kind), 'detail', id, 'result', version, page] as const,
      queryFn: ({ signal }) =>
        reportApi(api, kind).results({
          body: { definition_id: id, page, per_page: resultRowsPerPage },
          signal,
        }),
      placeholderData: keepPreviousData,
    }),
  aggregation: (api: ApiClient, kind: ReportKind, id: string, grouping: string[]) =>
    queryOptions({
      queryKey: [...reportQueries.kind(kind), 'detail', id, 'aggregation', grouping] as const,
      queryFn: ({ signal }) =>
        reportApi(api, kind).aggregationResults({ body: { definition_id: id, grouping_item_keys: grouping }, signal }),
    }),
  alertSettings: (api: ApiClient, id: string) =>
    queryOptions({
      queryKey: [...reportQueries.kind('medical_institution_reports'), 'detail', id, 'alert'] as const,
      queryFn: ({ signal }) => api.medicalInstitutionReportsGetAlertSettings({ params: { id }, signal }),
    }),
  /** Everyone of the tenant who can be notified (the staff list every member may read). */
  staffs: (api: ApiClient) =>
    queryOptions({
      queryKey: [...reportQueries.all, 'staffs'] as const,
      queryFn: ({ signal }) => api.listStaffs({ query: {}, signal }),
      staleTime: 5 * 60_000,
    }),
};

export const useCreateReport = (kind: ReportKind) =>
  useApiMutation(
    (api, body: ReportDefinitionValues) => reportApi(api, kind).createDefinition({ body }),
    [reportQueries.kind(kind)],
  );

export const useUpdateReport = (kind: ReportKind) =>
  useApiMutation(
    (api, { id, version, body }: { id: string; version: number; body: ReportDefinitionValues }) =>
      reportApi(api, kind).updateDefinition({ params: { id }, body, ifMatch: version }),
    [reportQueries.kind(kind)],
  );

export const useDeleteReport = (kind: ReportKind) =>
  useApiMutation(
    (api, { id, version }: { id: string; version: number }) =>
      reportApi(api, kind).deleteDefinition({ params: { id }, ifMatch: version }),
    [reportQueries.kind(kind)],
  );

// A change of the alert settings is a change of the definition: its version moves, so the detail reloads.
export const useUpdateAlertSettings = () =>
  useApiMutation(
    (api, { id, version, body }: { id: string; version: number; body: ReportAlertSettings }) =>
      api.medicalInstitutionReportsUpdateAlertSettings({ params: { id }, body, ifMatch: version }),
    [reportQueries.kind('medical_institution_reports')],
  );

/** The search of a kind's list and of a report's page as links open them. */
export const listSearch: ReportListParams = { page: 1, sort_by: 'create_date' };
export const detailSearch = { page: 1, mode: 'view', tab: 'result' } as const;
