import { Box, Loader } from '@mantine/core';
import { lazy, Suspense, useLayoutEffect, useRef } from 'react';
import { mapViewOf, mapViewParamsOf, viewBounds } from '../map-view.ts';
import type { MapPin, SalesMapCanvas as EagerSalesMapCanvas, SalesMapCanvasProps } from './SalesMapCanvas.tsx';

let loading: Promise<typeof import('./SalesMapCanvas.tsx')> | undefined;
const loadCanvas = () => (loading ??= import('./SalesMapCanvas.tsx'));

/**
 * Starts loading the map's code: a page calls it when it first renders, so the code loads alongside the
 * page's first queries (the tenant's location, the list) instead of after them.
 */
export function preloadSalesMapCanvas(): void {
  // A failure shows when the map renders (its error boundary); a retry then starts afresh.
  loadCanvas().catch(() => {
    loading = undefined;
  });
}

// deck.gl (most of the map's code) loads after the page: the filters and the list do not wait for it.
const Canvas = lazy(() => loadCanvas().then((m) => ({ default: m.SalesMapCanvas }))) as unknown as <T extends MapPin>(
  props: SalesMapCanvasProps<T>,
) => ReturnType<typeof EagerSalesMapCanvas>;

/** The map's box while its code loads: measured, so the first search needs no map. */
function Placeholder({ onSize }: { onSize: (width: number, height: number) => void }) {
  const ref = useRef<HTMLDivElement>(null);
  useLayoutEffect(() => {
    const box = ref.current;
    if (box && box.clientWidth > 0 && box.clientHeight > 0) onSize(box.clientWidth, box.clientHeight);
    // Once, for the size the map will open with; the map itself reports every later change.
  }, []);
  return (
    <Box ref={ref} h="100%" bg="#dbe9f6" pos="relative" data-testid="map-loading">
      <Loader m="md" size="sm" />
    </Box>
  );
}

/**
 * The map, its code loaded on demand. While it loads, the rectangle of the initial view in the box's size is
 * reported at once, the same rectangle the map reports when it is ready (both from the rounded view): the
 * list searches it without waiting, and the map's own report then sends no second search.
 */
export function SalesMapCanvas<T extends MapPin>(props: SalesMapCanvasProps<T>) {
  const { initialView, onBoundsChange } = props;
  return (
    <Suspense
      fallback={
        <Placeholder
          onSize={(width, height) =>
            onBoundsChange?.(viewBounds(mapViewOf(mapViewParamsOf(initialView))!, width, height))
          }
        />
      }
    >
      <Canvas<T> {...props} />
    </Suspense>
  );
}
