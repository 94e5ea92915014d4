import { Loader } from '@mantine/core';
import { createFileRoute } from '@tanstack/react-router';
import { lazy, Suspense } from 'react';
import { requireFeature } from '../../features/current-user/require-feature.ts';
import { salesMapSearch } from '../../features/sales-map/sales-map-state.ts';

// deck.gl and the basemap are large: they load with this page only, never with the main bundle.
const SalesMapPage = lazy(() =>
  import('../../features/sales-map/components/SalesMapPage.tsx').then((m) => {
    const webgl = m.webglAvailable();
    return {
      default: (props: Omit<Parameters<typeof m.SalesMapPage>[0], 'webgl'>) => (
        <m.SalesMapPage {...props} webgl={webgl} />
      ),
    };
  }),
);

export const Route = createFileRoute('/_authenticated/sale_map')({
  staticData: { title: '営業分析マップ' },
  validateSearch: salesMapSearch,
  beforeLoad: ({ context }) => requireFeature(context.user, 'sale_map'),
  component: SalesMapRoute,
});

function SalesMapRoute() {
  const state = Route.useSearch();
  const navigate = Route.useNavigate();
  return (
    <Suspense fallback={<Loader m="md" />}>
      <SalesMapPage
        state={state}
        onStateChange={(next) => void navigate({ search: next })}
        onViewChange={(view) => void navigate({ search: (prev) => ({ ...prev, ...view }), replace: true })}
      />
    </Suspense>
  );
}
