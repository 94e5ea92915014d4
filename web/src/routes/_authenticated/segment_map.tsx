import { Loader } from '@mantine/core';
import { createFileRoute } from '@tanstack/react-router';
import { lazy, Suspense } from 'react';
import { requireFeature } from '../../features/current-user/require-feature.ts';
import { segmentMapSearch } from '../../features/segment-map/segment-map-state.ts';

// deck.gl and the basemap are large: they load with this page only, never with the main bundle.
const SegmentMapPage = lazy(() =>
  import('../../features/segment-map/components/SegmentMapPage.tsx').then((m) => {
    const webgl = m.webglAvailable();
    return {
      default: (props: Omit<Parameters<typeof m.SegmentMapPage>[0], 'webgl'>) => (
        <m.SegmentMapPage {...props} webgl={webgl} />
      ),
    };
  }),
);

export const Route = createFileRoute('/_authenticated/segment_map')({
  staticData: { title: '診療圏分析' },
  validateSearch: segmentMapSearch,
  beforeLoad: ({ context }) => requireFeature(context.user, 'data_analysis'),
  component: SegmentMapRoute,
});

function SegmentMapRoute() {
  const state = Route.useSearch();
  const navigate = Route.useNavigate();
  return (
    <Suspense fallback={<Loader m="md" />}>
      <SegmentMapPage
        state={state}
        onStateChange={(next) => void navigate({ search: next })}
        onViewChange={(view) => void navigate({ search: (prev) => ({ ...prev, ...view }), replace: true })}
      />
    </Suspense>
  );
}
