import { queryOptions } from '@tanstack/react-query';
import type { ActionListItemStatus, ActionListStatus } from '@renkei/contracts';
import type { ApiClient } from '../../api/api-client.ts';
import { isApiError } from '../../api/api-errors.ts';
import { useApiMutation } from '../../api/useApiMutation.ts';
import { referralPeriodsOf, type ReferralSpan } from '../medical-institutions/search-state.ts';

export type ActionListItemFilter = 'all' | ActionListItemStatus;

export interface ActionListItemsParams {
  page: number;
  per_page: number;
  status: ActionListItemFilter;
  /** The period of the items' referral figures, as the partner search's 紹介数 columns (default 今年度). */
  referral_span?: ReferralSpan | undefined;
}

/** What the items call and their CSV send: the filter and the span's periods (as the partner search sends them). */
export function itemsQueryOf({ referral_span, ...params }: ActionListItemsParams) {
  return { ...params, ...referralPeriodsOf(referral_span) };
}

/** The page's URL state. */
export interface ActionListsParams {
  page: number;
  /** The list whose institutions are shown. */
  id: string | undefined;
  item_page: number;
  status: ActionListItemFilter;
}

// Every list of a tenant fits on a page or two; a list linked by id (/action_lists?id=…) is read by id.
export const actionListsPerPage = 100;
export const actionListItemsPerPage = 50;

export const actionListStatusLabels: Record<ActionListStatus, string> = { in_progress: '対応中', completed: '完了' };
export const actionListStatusColors: Record<ActionListStatus, string> = { in_progress: 'blue', completed: 'teal' };
export const itemStatusLabels: Record<ActionListItemStatus, string> = { actioned: '対応済み', not_actioned: '未対応' };
export const itemStatusColors: Record<ActionListItemStatus, string> = { actioned: 'teal', not_actioned: 'gray' };

/** One key factory for the action lists; its mutations invalidate only these keys. */
export const actionListQueries = {
  all: ['action-lists'] as const,
  lists: (api: ApiClient, params: { page: number; per_page: number }) =>
    queryOptions({
      queryKey: [...actionListQueries.all, 'list', params] as const,
      queryFn: ({ signal }) => api.listActionLists({ query: params, signal }),
    }),
  /**
   * One list by id; null once it is gone (deleted, or a link of another tenant), which the page says in words:
   * a list deleted while selected is a normal outcome, not an error page.
   */
  detail: (api: ApiClient, id: string) =>
    queryOptions({
      queryKey: [...actionListQueries.all, 'detail', id] as const,
      queryFn: async ({ signal }) => {
        try {
          return await api.getActionList({ params: { id }, signal });
        } catch (error) {
          if (isApiError(error) && error.status === 404) return null;
          throw error;
        }
      },
    }),
  items: (api: ApiClient, id: string, params: ActionListItemsParams) =>
    queryOptions({
      queryKey: [...actionListQueries.all, 'items', id, params] as const,
      queryFn: async ({ signal }) => {
        try {
          return await api.listItems({ params: { id }, query: itemsQueryOf(params), signal });
        } catch (error) {
          // The selected list deleted: its detail (null) says so; refreshing its items is no failure to report.
          if (isApiError(error) && error.status === 404)
            return { data: [], meta: { total_count: 0, page: params.page, per_page: params.per_page, total_pages: 0 } };
          throw error;
        }
      },
    }),
  ofInstitution: (api: ApiClient, institutionId: string) =>
    queryOptions({
      queryKey: [...actionListQueries.all, 'institution', institutionId] as const,
      queryFn: ({ signal }) => api.getActionLists({ params: { id: institutionId }, signal }),
    }),
};

export const useCreateActionList = () =>
  useApiMutation(
    (api, body: { name: string; medical_institution_ids?: string[] }) => api.createActionList({ body }),
    [actionListQueries.all],
  );

export const useRenameActionList = () =>
  useApiMutation(
    (api, { id, version, body }: { id: string; version: number; body: { name: string } }) =>
      api.updateActionList({ params: { id }, body, ifMatch: version }),
    [actionListQueries.all],
  );

export const useDeleteActionList = () =>
  useApiMutation(
    (api, { id, version }: { id: string; version: number }) =>
      api.deleteActionList({ params: { id }, ifMatch: version }),
    [actionListQueries.all],
  );

export const useChangeActionListStatus = () =>
  useApiMutation(
    (api, { id, version, status }: { id: string; version: number; status: ActionListStatus }) =>
      api.updateActionListStatus({ params: { id }, body: { status }, ifMatch: version }),
    [actionListQueries.all],
  );

export const useAddActionListItem = () =>
  useApiMutation(
    (api, { id, institutionId }: { id: string; institutionId: string }) =>
      api.addItem({ params: { id }, body: { medical_institution_id: institutionId } }),
    [actionListQueries.all],
  );

export const useBulkInsertActionListItems = () =>
  useApiMutation(
    (api, { id, institutionIds }: { id: string; institutionIds: string[] }) =>
      api.bulkInsertItems({ params: { id }, body: { medical_institution_ids: institutionIds } }),
    [actionListQueries.all],
  );

export const useBulkDeleteActionListItems = () =>
  useApiMutation(
    (api, { id, institutionIds }: { id: string; institutionIds: string[] }) =>
      api.bulkDeleteItems({ params: { id }, body: { medical_institution_ids: institutionIds } }),
    [actionListQueries.all],
  );

export const useChangeItemsStatus = () =>
  useApiMutation(
    (api, { id, institutionIds, status }: { id: string; institutionIds: string[]; status: ActionListItemStatus }) =>
      api.updateItemsStatus({ params: { id }, body: { medical_institution_ids: institutionIds, status } }),
    [actionListQueries.all],
  );
