import { queryOptions } from '@tanstack/react-query';
import type { TenantSettingInput } from '@renkei/contracts';
import type { z } from 'zod';
import type { ApiClient } from '../../api/api-client.ts';
import { useApiMutation } from '../../api/useApiMutation.ts';
import { currentUserQueries } from '../current-user/current-user.queries.ts';

/** One key factory for the tenant settings feature; its mutation invalidates only these keys. */
export const tenantSettingQueries = {
  all: ['tenant-setting'] as const,
  detail: (api: ApiClient) =>
    queryOptions({
      queryKey: [...tenantSettingQueries.all, 'detail'] as const,
      queryFn: ({ signal }) => api.getTenantSetting({ signal }),
    }),
  histories: (api: ApiClient, page: number) =>
    queryOptions({
      queryKey: [...tenantSettingQueries.all, 'histories', page] as const,
      queryFn: ({ signal }) => api.listTenantSettingHistories({ query: { page, per_page: 20 }, signal }),
    }),
};

export type TenantSettingInputValues = z.input<typeof TenantSettingInput>;

export const useUpdateTenantSetting = () =>
  useApiMutation(
    (api, body: TenantSettingInputValues) => api.updateTenantSetting({ body }),
    [tenantSettingQueries.all],
  );

/** The logo is shown in the header from the current user: both are refreshed. */
export const useUpdateTenantLogo = () =>
  useApiMutation(
    (api, data: string) => api.updateTenantLogo({ body: { data } }),
    [tenantSettingQueries.all, currentUserQueries.all],
  );

export const useDeleteTenantLogo = () =>
  useApiMutation((api) => api.deleteTenantLogo({}), [tenantSettingQueries.all, currentUserQueries.all]);
