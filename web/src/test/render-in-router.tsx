import { MantineProvider } from '@mantine/core';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import {
  createMemoryHistory,
  createRootRoute,
  createRoute,
  createRouter,
  Outlet,
  RouterProvider,
} from '@tanstack/react-router';
import { render } from '@testing-library/react';
import { Suspense, type ReactNode } from 'react';
import { ServicesProvider, type AppServices } from '../app/services-context.tsx';
import { currentUserQueries } from '../features/current-user/current-user.queries.ts';
import type { SignedInUser } from '../features/current-user/signed-in-user.ts';
import { testServices } from './render-app.tsx';

/**
 * A component on a page of a router (basepath `/app`, as the app's), so its links resolve; `paths` are
 * the other routes it links to, each a bare page. The signed-in user is cached as the authenticated
 * layout does before any page renders.
 */
export function renderInRouter(
  ui: () => ReactNode,
  { api, user, paths = [] }: { api: object; user?: SignedInUser; paths?: string[] },
) {
  const services: AppServices = { ...testServices(), api: api as AppServices['api'] };
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  if (user) client.setQueryData(currentUserQueries.detail(services.api).queryKey, user);
  const root = createRootRoute({ component: () => <Outlet /> });
  const page = createRoute({
    getParentRoute: () => root,
    path: '/',
    component: () => <Suspense fallback="loading">{ui()}</Suspense>,
  });
  const others = paths.map((path) => createRoute({ getParentRoute: () => root, path, component: () => null }));
  const router = createRouter({
    routeTree: root.addChildren([page, ...others]),
    history: createMemoryHistory({ initialEntries: ['/app/'] }),
    basepath: '/app',
  });
  const view = render(
    <MantineProvider>
      <ServicesProvider value={services}>
        <QueryClientProvider client={client}>
          <RouterProvider router={router as never} />
        </QueryClientProvider>
      </ServicesProvider>
    </MantineProvider>,
  );
  return { ...view, client, router };
}
