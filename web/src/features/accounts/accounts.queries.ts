import { queryOptions } from '@tanstack/react-query';
import type { AccountInput } from '@renkei/contracts';
import type { z } from 'zod';
import type { ApiClient } from '../../api/api-client.ts';
import { useApiMutation } from '../../api/useApiMutation.ts';

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

export const useCreateAccount = () =>
  useApiMutation((api, body: AccountInputValues) => api.createAccount({ body }), [accountQueries.all]);

// Accounts carry no version: the last save wins (identity keeps no revision for them).
export const useUpdateAccount = () =>
  useApiMutation(
    (api, { id, body }: { id: string; version: number; body: AccountInputValues }) =>
      api.updateAccount({ params: { id }, body }),
    [accountQueries.all],
  );

export const useDeleteAccount = () =>
  useApiMutation(
    (api, { id }: { id: string; version: number }) => api.deleteAccount({ params: { id } }),
    [accountQueries.all],
  );

export const useResendInvitation = () =>
  useApiMutation((api, id: string) => api.resendInvitation({ params: { id } }), [accountQueries.all]);
