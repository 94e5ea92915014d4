import { queryOptions } from '@tanstack/react-query';
import type { AccountInput } from '@renkei/contracts';
import type { z } from 'zod';
import type { ApiClient } from '../../api/api-client.ts';
import { ApiError, isApiError } from '../../api/api-errors.ts';
import { useApiMutation } from '../../api/useApiMutation.ts';
import { communicationQueries } from '../communications/communications.queries.ts';
import { currentUserQueries } from '../current-user/current-user.queries.ts';
import { visitChartQueries } from '../data-analysis/visit-charts.queries.ts';

export interface AccountListParams {
  page: number;
  per_page: number;
}

/** One key factory for the accounts feature; its mutations invalidate only these keys. */
export const accountQueries = {
  all: ['accounts'] as const,
  list: (api: ApiClient, params: AccountListParams) =>
    queryOptions({
      queryKey: [...accountQueries.all, 'list', params] as const,
      queryFn: ({ signal }) => api.listAccounts({ query: params, signal }),
    }),
};

export type AccountInputValues = z.input<typeof AccountInput>;

/**
 * The staff lists of the pickers (assignee, author, visit-chart staff) name the accounts: an invited,
 * renamed or deleted account shows there at once, not after their 5-minute cache. An owner editing
 * their own account changes the header's name, or their own role.
 */
const changedByAccounts = [
  accountQueries.all,
  currentUserQueries.all,
  // Only the keys are read: no api is called.
  ...[communicationQueries.staffs, visitChartQueries.staffs].map((staffs) => staffs(null as never).queryKey),
];

/**
 * A duplicate email or login ID is a 409 that names its field: the person fixes that input, so the
 * form treats it as a 422 (stays open with what was typed, the message under the field) instead of
 * closing on a toast.
 */
function takenAsFieldError(error: unknown): never {
  if (isApiError(error) && error.status === 409 && error.errors.length > 0)
    throw new ApiError(422, error.message, error.subCode, error.errors);
  throw error;
}

export const useCreateAccount = () =>
  useApiMutation(
    (api, body: AccountInputValues) => api.createAccount({ body }).catch(takenAsFieldError),
    changedByAccounts,
  );

// Accounts carry no version: the last save wins (identity keeps no revision for them).
export const useUpdateAccount = () =>
  useApiMutation(
    (api, { id, body }: { id: string; version: number; body: AccountInputValues }) =>
      api.updateAccount({ params: { id }, body }).catch(takenAsFieldError),
    changedByAccounts,
  );

export const useDeleteAccount = () =>
  useApiMutation(
    (api, { id }: { id: string; version: number }) => api.deleteAccount({ params: { id } }),
    changedByAccounts,
  );

export const useResendInvitation = () =>
  useApiMutation((api, id: string) => api.resendInvitation({ params: { id } }), [accountQueries.all]);
