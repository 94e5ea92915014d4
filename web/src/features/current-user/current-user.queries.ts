import { queryOptions } from '@tanstack/react-query';
import { registry, type EndpointContract } from '@renkei/contracts';
import type { ApiTransport } from '../../api/api-client.ts';
import { toSignedInUser, type CurrentUserResponse, type SignedInUser } from './signed-in-user.ts';

function currentUserContract(): EndpointContract {
  const contract = registry.find((e) => e.method === 'GET' && e.path === '/current_user');
  if (!contract) throw new Error('GET /current_user is missing from the contract registry');
  return contract;
}

export const currentUserQueries = {
  all: ['current-user'] as const,
  detail: (transport: ApiTransport) =>
    queryOptions({
      queryKey: [...currentUserQueries.all],
      queryFn: async ({ signal }): Promise<SignedInUser> =>
        toSignedInUser((await transport.call(currentUserContract(), { signal } as never)) as CurrentUserResponse),
      staleTime: Infinity,
      retry: false,
    }),
};
