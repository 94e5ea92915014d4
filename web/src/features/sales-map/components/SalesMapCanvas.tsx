import { Box } from '@mantine/core';
import DeckGL, { type DeckGLRef } from '@deck.gl/react';
import { GeoJsonLayer, ScatterplotLayer } from '@deck.gl/layers';
import type { MapViewState, PickingInfo } from '@deck.gl/core';
import type { SalesMapMedicalInstitution } from '@renkei/contracts';
import type { Feature } from 'geojson';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { japanBasemap } from '../japan-basemap.ts';
import { mapViewOf, mapViewParamsOf, viewBounds, type MapView, type MapViewParams } from '../map-view.ts';
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
  const boxRef = useRef<HTMLDivElement>(null);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const lastSent = useRef<string | undefined>(undefined);
  const [ready, setReady] = useState(false);
  const [settled, setSettled] = useState<Required<MapViewParams> | null>(null);

  const sendBounds = useCallback(() => {
    const viewport = deckRef.current?.deck?.getViewports()[0];
    const box = boxRef.current;
    if (!viewport || !box || box.clientWidth === 0 || box.clientHeight === 0) return;
    const view = mapViewParamsOf(viewport as unknown as MapView);
    // The box's size, not the viewport's: on load the canvas may still have a default size, and a rectangle
    // searched for it is searched again a moment later.
    const [width, height] = [box.clientWidth, box.clientHeight];
    const key = `${view.lat},${view.lng},${view.zoom},${width},${height}`;
    if (key === lastSent.current) return;
    lastSent.current = key;
    setSettled(view);
    onViewChange?.(view);
    onBoundsChange?.(viewBounds(mapViewOf(view)!, width, height));
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
        data: japanBasemap as Feature[],
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
    [rows, highlightedId, onHover, colorOf],
  );

  return (
    <Box
      ref={boxRef}
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
        // A resized box shows another rectangle; the canvas's own first resize after load changes nothing.
        onResize={() => scheduleBounds()}
        onLoad={() => {
          setReady(true);
          sendBounds();
        }}
      />
    </Box>
  );
}
