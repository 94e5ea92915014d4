import { queryOptions } from '@tanstack/react-query';
import type { ApiClient } from '../../api/api-client.ts';
import { referenceDataQueries } from '../reference-data/reference-data.queries.ts';
import { toSignedInUser, type SignedInUser } from './signed-in-user.ts';

export const currentUserQueries = {
  all: ['current-user'] as const,
  detail: (api: ApiClient) =>
    queryOptions({
      queryKey: [...currentUserQueries.all],
      queryFn: async ({ signal, client }): Promise<SignedInUser> => {
        const answer = await api.getCurrentUser({ signal });
        // The same answer carries the tenant's flags that pages read through their own query: no second call.
        client.setQueryData(referenceDataQueries.tenant(api).queryKey, answer.tenant);
        return toSignedInUser(answer);
      },
      staleTime: Infinity,
      retry: false,
    }),
};
