import { QueryClient, QueryClientProvider, type QueryKey } from '@tanstack/react-query';
import { createElement, type ReactNode } from 'react';
import { ServicesProvider, type AppServices } from '../app/services-context.tsx';
import { testServices } from './render-app.tsx';

/**
 * A query cache holding an answer under each of `keys`, and a wrapper that gives a hook that cache and
 * `api`: for tests of what a mutation makes stale. `invalidated()` names the keys it did, sorted.
 */
export function cachedKeys<const Name extends string>(api: object, keys: Record<Name, QueryKey>) {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  for (const key of Object.values<QueryKey>(keys)) client.setQueryData(key, { cached: true });
  const services: AppServices = { ...testServices(), api: api as AppServices['api'] };
  const wrapper = ({ children }: { children: ReactNode }) =>
    createElement(QueryClientProvider, { client }, createElement(ServicesProvider, { value: services, children }));
  const invalidated = () =>
    (Object.entries(keys) as [Name, QueryKey][])
      .filter(([, key]) => client.getQueryState(key)?.isInvalidated)
      .map(([name]) => name)
      .sort();
  return { wrapper, invalidated };
}
