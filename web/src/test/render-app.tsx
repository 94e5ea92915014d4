import { MantineProvider } from '@mantine/core';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import {
  createMemoryHistory,
  createRootRoute,
  createRoute,
  createRouter,
  RouterProvider,
  type AnyRoute,
} from '@tanstack/react-router';
import { act, render } from '@testing-library/react';
import { vi } from 'vitest';
import { readConfig } from '../app/config.ts';
import { ServicesProvider, type AppServices } from '../app/services-context.tsx';
import type { SignedInUser } from '../features/current-user/signed-in-user.ts';
import { AppFrame } from '../frame/AppFrame.tsx';
import { RootLayout } from '../frame/RootLayout.tsx';
import { ErrorPage } from '../errors/ErrorPage.tsx';

export function testUser(overrides: Partial<SignedInUser> = {}): SignedInUser {
  return {
    id: 'u1',
    name: '山田 花子',
    email: 'hanako@example.jp',
    loginName: 'hanako',
    csAccount: false,
    tenant: { id: 't1', name: '静岡中央病院', logo: null },
    role: 'member',
    features: ['tags'],
    ownDepartmentId: null,
    defaultFacilityTypeIds: [],
    emailSenderAllowedAddresses: [],
    ...overrides,
  };
}

export function testServices(): AppServices {
  return {
    config: readConfig({}, 'https://localhost:3000'),
    auth: {
      start: vi.fn(),
      activeAccount: vi.fn(() => null),
      login: vi.fn(),
      getToken: vi.fn(),
      logout: vi.fn(),
      clearAccount: vi.fn(async () => {}),
    },
    api: {} as AppServices['api'],
    logout: vi.fn(async () => {}),
  };
}

/** The real frame and root layout around simple pages, at `path`. */
export function renderFrame(
  path: string,
  user: SignedInUser,
  pages: Record<string, { title?: string; text: string; component?: () => React.ReactNode }>,
) {
  const root = createRootRoute({ component: RootLayout, notFoundComponent: () => <ErrorPage status={404} /> });
  const layout = createRoute({
    getParentRoute: () => root,
    id: '_authenticated',
    component: () => <AppFrame user={user} />,
  });
  const children: AnyRoute[] = Object.entries(pages).map(([p, page]) =>
    createRoute({
      getParentRoute: () => layout,
      path: p,
      staticData: { title: page.title },
      component: page.component ?? (() => <p>{page.text}</p>),
    }),
  );
  const router = createRouter({
    routeTree: root.addChildren([layout.addChildren(children)]),
    history: createMemoryHistory({ initialEntries: [`/app${path}`] }),
    basepath: '/app',
  });
  const services = testServices();
  const utils = render(
    <MantineProvider>
      <ServicesProvider value={services}>
        <QueryClientProvider client={new QueryClient()}>
          <RouterProvider router={router as never} />
        </QueryClientProvider>
      </ServicesProvider>
    </MantineProvider>,
  );
  return { ...utils, router, services };
}

export function setViewportWidth(width: number) {
  (globalThis as { __viewportWidth?: number }).__viewportWidth = width;
  act(() => (globalThis as { __notifyViewport?: () => void }).__notifyViewport?.());
}
