import { keepPreviousData, queryOptions } from '@tanstack/react-query';
import type { SalesMapSearchBody } from '@renkei/contracts';
import type { ApiClient } from '../../api/api-client.ts';

export const salesMapQueries = {
  all: ['sales-map'] as const,
  search: (api: ApiClient, body: SalesMapSearchBody) =>
    queryOptions({
      queryKey: [...salesMapQueries.all, 'search', body] as const,
      queryFn: ({ signal }) => api.searchForSalesMap({ body, signal }),
      // Panning keeps the pins on screen while the next rectangle loads.
      placeholderData: keepPreviousData,
    }),
};
