import { queryOptions } from '@tanstack/react-query';
import type { ApiClient } from '../../api/api-client.ts';
import { toSignedInUser, type SignedInUser } from './signed-in-user.ts';

export const currentUserQueries = {
  all: ['current-user'] as const,
  detail: (api: ApiClient) =>
    queryOptions({
      queryKey: [...currentUserQueries.all],
      queryFn: async ({ signal }): Promise<SignedInUser> => toSignedInUser(await api.getCurrentUser({ signal })),
      staleTime: Infinity,
      retry: false,
    }),
};
