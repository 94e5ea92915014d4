import { Box } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import DeckGL, { type DeckGLRef } from '@deck.gl/react';
import { GeoJsonLayer, ScatterplotLayer } from '@deck.gl/layers';
import type { MapViewState, PickingInfo } from '@deck.gl/core';
import type { SalesMapMedicalInstitution } from '@renkei/contracts';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { japanBasemap } from '../japan-basemap.ts';
import { mapViewParamsOf, type MapView, type MapViewParams } from '../map-view.ts';
import type { MapBounds } from '../sales-map-state.ts';
import { pinColor, pinRadius, pinTooltip } from '../pins.ts';

/** What a pin needs; the sales map's rows and other maps' rows (診療圏分析) both carry it. */
export interface MapPin {
  id: string;
  latitude: number;
  longitude: number;
  referral_count: number | null;
}

export interface SalesMapCanvasProps<T extends MapPin = SalesMapMedicalInstitution> {
  rows: readonly T[];
  initialView: MapViewState;
  highlightedId: string | null;
  onHover: (id: string | null) => void;
  /** The visible rectangle after the view settles (debounced), and once when the map is ready. */
  onBoundsChange?: ((bounds: MapBounds) => void) | undefined;
  /** The centre and zoom (rounded as the address keeps them) whenever the rectangle is reported. */
  onViewChange?: ((view: Required<MapViewParams>) => void) | undefined;
  /** A pin's colour; default the sales map's (visited in the period or not). */
  colorOf?: ((row: T) => Rgba) | undefined;
  /** A pin's tooltip; default the sales map's. */
  tooltipOf?: ((row: T) => string) | undefined;
  /** The canvas box's test id (e2e waits on its `data-ready`). */
  testId?: string | undefined;
}

type Rgba = [number, number, number, number];

// The defaults read the sales map's fields: a map of other rows passes its own colour and tooltip.
const salesPinColor = (row: MapPin) => pinColor(row as SalesMapMedicalInstitution);
const salesPinTooltip = (row: MapPin) => pinTooltip(row as SalesMapMedicalInstitution);

/**
 * How long the view must rest before its rectangle is searched and its centre written to the address: a
 * drag sends one request and replaces one history entry, not fifty.
 */
const boundsDelayMs = 400;

const highlightColor: Rgba = [255, 212, 59, 255];

/** The deck.gl map: the offline Japan basemap and a pin per institution of the current page. */
export function SalesMapCanvas<T extends MapPin = SalesMapMedicalInstitution>({
  rows,
  initialView,
  highlightedId,
  onHover,
  onBoundsChange,
  onViewChange,
  colorOf = salesPinColor,
  tooltipOf = salesPinTooltip,
  testId = 'sales-map-canvas',
}: SalesMapCanvasProps<T>) {
  const deckRef = useRef<DeckGLRef>(null);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const [ready, setReady] = useState(false);
  const [settled, setSettled] = useState<Required<MapViewParams> | null>(null);
  const basemap = useQuery({ queryKey: ['sales-map', 'basemap'], queryFn: japanBasemap, staleTime: Infinity });

  const sendBounds = useCallback(() => {
    const viewport = deckRef.current?.deck?.getViewports()[0];
    if (!viewport) return;
    const view = mapViewParamsOf(viewport as unknown as MapView);
    setSettled(view);
    onViewChange?.(view);
    const [west, south, east, north] = viewport.getBounds();
    const clamp = (v: number, limit: number) => Math.max(-limit, Math.min(limit, v));
    onBoundsChange?.({
      north: clamp(north, 90),
      south: clamp(south, 90),
      east: clamp(east, 180),
      west: clamp(west, 180),
    });
  }, [onBoundsChange, onViewChange]);
  const scheduleBounds = useCallback(() => {
    clearTimeout(timer.current);
    timer.current = setTimeout(sendBounds, boundsDelayMs);
  }, [sendBounds]);
  useEffect(() => () => clearTimeout(timer.current), []);

  const layers = useMemo(
    () => [
      new GeoJsonLayer({
        id: 'basemap',
        data: basemap.data ?? [],
        filled: true,
        stroked: true,
        getFillColor: [241, 243, 245],
        getLineColor: [173, 181, 189],
        lineWidthMinPixels: 1,
      }),
      new ScatterplotLayer<T>({
        id: 'institutions',
        data: rows,
        pickable: true,
        stroked: true,
        radiusUnits: 'pixels',
        getPosition: (d) => [d.longitude, d.latitude],
        getRadius: (d) => pinRadius(d.referral_count),
        getFillColor: (d) => colorOf(d),
        getLineColor: (d) => (d.id === highlightedId ? highlightColor : [255, 255, 255, 255]),
        getLineWidth: (d) => (d.id === highlightedId ? 4 : 1),
        lineWidthUnits: 'pixels',
        updateTriggers: { getLineColor: highlightedId, getLineWidth: highlightedId, getFillColor: colorOf },
        onHover: (info: PickingInfo<T>) => onHover(info.object?.id ?? null),
      }),
    ],
    [basemap.data, rows, highlightedId, onHover, colorOf],
  );

  return (
    <Box
      pos="relative"
      h="100%"
      bg="#dbe9f6"
      data-testid={testId}
      data-ready={ready || undefined}
      data-pin-count={rows.length}
      // The settled view as the address writes it: e2e compares it across a reload.
      data-view={settled ? `${settled.lat},${settled.lng},${settled.zoom}` : undefined}
      style={{ overflow: 'hidden' }}
    >
      <DeckGL
        ref={deckRef}
        initialViewState={initialView}
        controller
        layers={layers}
        getTooltip={({ object }: PickingInfo<T>) => (object ? { text: tooltipOf(object) } : null)}
        onViewStateChange={() => scheduleBounds()}
        // The canvas takes its size after the first frame: the rectangle of onLoad may be a default one.
        onResize={() => scheduleBounds()}
        onLoad={() => {
          setReady(true);
          sendBounds();
        }}
      />
    </Box>
  );
}
