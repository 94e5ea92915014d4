import { queryOptions } from '@tanstack/react-query';
import type { ApiClient } from '../../api/api-client.ts';

/** Refreshed while the page is open: imports and read models move on their own. */
const syncStatusRefreshMs = 5_000;

export const dataSyncStatusQueries = {
  all: ['data-sync-statuses'] as const,
  current: (api: ApiClient) =>
    queryOptions({
      queryKey: [...dataSyncStatusQueries.all, 'current'] as const,
      queryFn: ({ signal }) => api.dataSyncStatuses({ signal }),
      refetchInterval: syncStatusRefreshMs,
    }),
};
