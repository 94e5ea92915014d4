import { createRootRouteWithContext } from '@tanstack/react-router';
import type { RouterContext } from '../app/router-context.ts';
import { ErrorPage } from '../errors/ErrorPage.tsx';
import { RouteErrorPage } from '../errors/RouteErrorPage.tsx';
import { FullScreenLoading } from '../frame/FullScreenLoading.tsx';
import { RootLayout } from '../frame/RootLayout.tsx';

export const Route = createRootRouteWithContext<RouterContext>()({
  component: RootLayout,
  errorComponent: RouteErrorPage,
  notFoundComponent: () => <ErrorPage status={404} />,
  pendingComponent: () => <FullScreenLoading />,
});
