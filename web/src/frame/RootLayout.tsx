import { Outlet, useMatches } from '@tanstack/react-router';
import { useEffect } from 'react';
import { FullScreenLoading } from './FullScreenLoading.tsx';
import { useOverlayMessage } from './overlay-store.ts';
import { documentTitle } from './page-meta.ts';
import { useClaimedPageTitle } from './page-title.ts';
import './static-data.ts';

/**
 * Titles the document after the page (a title the page claimed from its data, else the deepest route
 * that names itself), and hosts the app-wide overlay.
 */
export function RootLayout() {
  const matches = useMatches();
  const claimed = useClaimedPageTitle();
  const title = claimed ?? [...matches].reverse().find((m) => m.staticData?.title)?.staticData.title;
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
