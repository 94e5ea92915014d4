import { useMutation, useQueryClient, type QueryKey } from '@tanstack/react-query';
import { useServices } from '../app/services-context.tsx';
import type { ApiClient } from './api-client.ts';

/**
 * A write through the API that refreshes what it changed: `invalidates` (the feature's own keys, plus
 * those of any other screen it is known to change) are invalidated before `mutateAsync` resolves, so
 * the caller shows the change at once. Failures are the screen's to show (`useMutationErrorHandler`),
 * hence `handlesErrors`.
 */
export function useApiMutation<V, R>(
  call: (api: ApiClient, variables: V) => Promise<R>,
  invalidates: readonly QueryKey[],
) {
  const { api } = useServices();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (variables: V) => call(api, variables),
    onSuccess: () => Promise.all(invalidates.map((queryKey) => queryClient.invalidateQueries({ queryKey }))),
    meta: { handlesErrors: true },
    // Offline, a write fails at once with a network error (api-client) instead of waiting, paused and
    // unsaved, for a reconnect: the screen says so, and a form that keeps its record sends it itself.
    networkMode: 'always',
  });
}
