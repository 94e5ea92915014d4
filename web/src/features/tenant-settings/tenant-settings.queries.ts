import { queryOptions } from '@tanstack/react-query';
import type { TenantSettingInput } from '@renkei/contracts';
import type { z } from 'zod';
import type { ApiClient } from '../../api/api-client.ts';
import { useApiMutation } from '../../api/useApiMutation.ts';

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
