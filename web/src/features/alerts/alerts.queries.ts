import { queryOptions } from '@tanstack/react-query';
import type { AlertConditionInput } from '@renkei/contracts';
import type { z } from 'zod';
import type { ApiClient } from '../../api/api-client.ts';
import { useApiMutation } from '../../api/useApiMutation.ts';
import { tagQueries } from '../tags/tags.queries.ts';

export type AlertStatus = 'open' | 'archived';
export interface AlertListParams {
  page: number;
  per_page: number;
  status: AlertStatus;
}
export interface PageParams {
  page: number;
  per_page: number;
}
export type AlertConditionInputValues = z.input<typeof AlertConditionInput>;

/** One key factory for alerts and their conditions; the mutations invalidate only these keys. */
export const alertQueries = {
  all: ['alerts'] as const,
  list: (api: ApiClient, params: AlertListParams) =>
    queryOptions({
      queryKey: [...alertQueries.all, 'list', params] as const,
      queryFn: ({ signal }) => api.listAlerts({ query: params, signal }),
    }),
  detail: (api: ApiClient, id: string) =>
    queryOptions({
      queryKey: [...alertQueries.all, 'detail', id] as const,
      queryFn: ({ signal }) => api.getAlert({ params: { id }, signal }),
    }),
  institutions: (api: ApiClient, id: string, params: PageParams) =>
    queryOptions({
      queryKey: [...alertQueries.all, 'detail', id, 'institutions', params] as const,
      queryFn: ({ signal }) => api.listAlertMedicalInstitutions({ params: { id }, query: params, signal }),
    }),
  conditions: (api: ApiClient, params: PageParams) =>
    queryOptions({
      queryKey: [...alertQueries.all, 'conditions', params] as const,
      queryFn: ({ signal }) => api.listAlertConditions({ query: params, signal }),
    }),
};

/**
 * Every tag of the tenant, page after page (the API gives at most 100 a page): a condition may name any
 * of them, and the condition list shows their names. Under the tags' list key, so a tag change refreshes it.
 */
export const allTagsQuery = (api: ApiClient) =>
  queryOptions({
    queryKey: [...tagQueries.lists(), 'all-pages'] as const,
    queryFn: async ({ signal }) => {
      const perPage = 100;
      const first = await api.listTags({ query: { page: 1, per_page: perPage, sort: 'asc' }, signal });
      const tags = [...first.data];
      for (let page = 2; page <= first.meta.total_pages; page++)
        tags.push(...(await api.listTags({ query: { page, per_page: perPage, sort: 'asc' }, signal })).data);
      return tags;
    },
  });

export const useArchiveAlert = () =>
  useApiMutation((api, id: string) => api.archiveAlert({ params: { id } }), [alertQueries.all]);

export const useBulkArchiveAlerts = () =>
  useApiMutation(
    (api, alertIds: string[]) => api.bulkArchiveAlerts({ body: { alert_ids: alertIds } }),
    [alertQueries.all],
  );

export const useCreateAlertCondition = () =>
  useApiMutation(
    (api, { body, idempotencyKey }: { body: AlertConditionInputValues; idempotencyKey?: string }) =>
      api.createAlertCondition({ body, ...(idempotencyKey ? { idempotencyKey } : {}) }),
    [alertQueries.all],
  );

export const useDeleteAlertCondition = () =>
  useApiMutation((api, id: string) => api.deleteAlertCondition({ params: { id } }), [alertQueries.all]);

/** 「2026年3月分」: an alert is the evaluation of one month. */
export function alertMonthLabel(alertDate: string): string {
  return `${Number(alertDate.slice(0, 4))}年${Number(alertDate.slice(5, 7))}月分`;
}
