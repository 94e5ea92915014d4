import { Outlet, createRootRouteWithContext, useMatches } from '@tanstack/react-router';
import { useEffect } from 'react';
import type { RouterContext } from '../app/router-context.ts';
import { ErrorPage } from '../errors/ErrorPage.tsx';
import { RouteErrorPage } from '../errors/RouteErrorPage.tsx';
import { FullScreenLoading } from '../frame/FullScreenLoading.tsx';
import { documentTitle } from '../frame/page-meta.ts';
import { useOverlayMessage } from '../frame/overlay-store.ts';
import '../frame/static-data.ts';

function Root() {
  const matches = useMatches();
  const title = [...matches].reverse().find((m) => m.staticData?.title)?.staticData.title;
  const overlay = useOverlayMessage();
  useEffect(() => {
    document.title = documentTitle(title);
  }, [title]);
  return (
    <>
      <Outlet />
      {overlay && <FullScreenLoading message={overlay} />}
    </>
  );
}

export const Route = createRootRouteWithContext<RouterContext>()({
  component: Root,
  errorComponent: RouteErrorPage,
  notFoundComponent: () => <ErrorPage status={404} />,
  pendingComponent: () => <FullScreenLoading />,
});
