import { queryOptions } from '@tanstack/react-query';
import type { ApiClient } from '../../api/api-client.ts';

/** Reference data changes rarely; one fetch per session is enough. */
const longLived = { staleTime: 10 * 60_000 } as const;

export const referenceDataQueries = {
  all: ['reference-data'] as const,
  departments: (api: ApiClient) =>
    queryOptions({
      queryKey: [...referenceDataQueries.all, 'departments'] as const,
      queryFn: ({ signal }) => api.listDepartments({ signal }),
      ...longLived,
    }),
  facilityTypeGroups: (api: ApiClient) =>
    queryOptions({
      queryKey: [...referenceDataQueries.all, 'facility-type-groups'] as const,
      queryFn: ({ signal }) => api.listFacilityTypeGroups({ signal }),
      ...longLived,
    }),
  ownDepartments: (api: ApiClient) =>
    queryOptions({
      queryKey: [...referenceDataQueries.all, 'own-departments'] as const,
      queryFn: ({ signal }) => api.listOwnDepartments({ signal }),
      ...longLived,
    }),
  phaseMasters: (api: ApiClient) =>
    queryOptions({
      queryKey: [...referenceDataQueries.all, 'phase-masters'] as const,
      queryFn: ({ signal }) => api.listPhaseMasters({ signal }),
      ...longLived,
    }),
  /** Tenant flags the current-user model of the frame does not carry (enabled_phase). */
  tenant: (api: ApiClient) =>
    queryOptions({
      queryKey: [...referenceDataQueries.all, 'tenant'] as const,
      queryFn: async ({ signal }) => (await api.getCurrentUser({ signal })).tenant,
      staleTime: Infinity,
    }),
};
