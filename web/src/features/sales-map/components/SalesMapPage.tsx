import { Box, Grid, Group, Loader, Paper, ScrollArea, Stack, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import type { MapViewState } from '@deck.gl/core';
import { useCallback, useEffect, useMemo, useState } from 'react';
import { useServices } from '../../../app/services-context.tsx';
import { referenceDataQueries } from '../../reference-data/reference-data.queries.ts';
import { mapViewOf, pickMapView, withoutMapView, type MapViewParams } from '../map-view.ts';
import { salesMapQueries } from '../sales-map.queries.ts';
import { defaultPeriod, toSalesMapBody, type MapBounds, type SalesMapState } from '../sales-map-state.ts';
import { notVisitedColor, visitedColor } from '../pins.ts';
import { preloadSalesMapCanvas, SalesMapCanvas } from './LazySalesMapCanvas.tsx';
import { SalesMapFilterPanel } from './SalesMapFilterPanel.tsx';
import { SalesMapList } from './SalesMapList.tsx';
import { MapPanel, mapListHeight } from './MapPanel.tsx';

export { noWebglMessage } from './MapPanel.tsx';

export interface SalesMapPageProps {
  state: SalesMapState;
  onStateChange: (state: SalesMapState) => void;
  /** The view the map settled on, for the address (replacing its entry: panning adds no history). */
  onViewChange?: ((view: Required<MapViewParams>) => void) | undefined;
  /** Whether the browser can draw the map (WebGL2); the list works without it. */
  webgl?: boolean;
}

export const pageFullMessage = '表示件数の上限に達しました。地図を拡大してください';

/** deck.gl 9 draws with WebGL2. */
export function webglAvailable(): boolean {
  try {
    return document.createElement('canvas').getContext('webgl2') !== null;
  } catch {
    return false;
  }
}

/** Japan whole, or the tenant's own hospital when its location is known. */
export function initialView(tenant: { latitude: number | null; longitude: number | null } | undefined): MapViewState {
  if (tenant?.latitude != null && tenant.longitude != null)
    return { latitude: tenant.latitude, longitude: tenant.longitude, zoom: 9 };
  return { latitude: 36.5, longitude: 137.5, zoom: 4.5 };
}

function Legend() {
  const dot = (c: number[]) => `rgba(${c[0]}, ${c[1]}, ${c[2]}, 1)`;
  return (
    <Group gap="md">
      {[
        [visitedColor, '期間内に訪問あり'],
        [notVisitedColor, '期間内に訪問なし'],
      ].map(([color, label]) => (
        <Group key={label as string} gap={4}>
          <Box w={10} h={10} style={{ borderRadius: '50%', background: dot(color as number[]) }} />
          <Text size="xs">{label as string}</Text>
        </Group>
      ))}
      <Text size="xs" c="dimmed">
        円の大きさ: 紹介数
      </Text>
    </Group>
  );
}

/** 営業分析マップ: the filtered institutions of the visible rectangle as pins, and the same page as a list. */
export function SalesMapPage({ state, onStateChange, onViewChange, webgl = true }: SalesMapPageProps) {
  const { api } = useServices();
  const tenant = useQuery(referenceDataQueries.tenant(api));
  const [mapFailed, setMapFailed] = useState(false);
  const showMap = webgl && !mapFailed;
  useEffect(() => {
    if (showMap) preloadSalesMapCanvas();
  }, [showMap]);
  // Until the map reports its rectangle nothing is searched (the first answer would be all Japan's);
  // without a map the list covers all of Japan.
  const [bounds, setBounds] = useState<MapBounds | undefined>(undefined);
  const [highlightedId, setHighlightedId] = useState<string | null>(null);
  // The address's view opens the map; afterwards the map leads and the address follows it.
  const [linkedView] = useState(() => mapViewOf(state));
  const filters = withoutMapView(state);
  const today = useMemo(() => new Date(), []);
  const period = state.from && state.to ? { from: state.from, to: state.to } : defaultPeriod(today);
  const body = toSalesMapBody(state, showMap ? bounds : undefined, today);
  const search = useQuery({ ...salesMapQueries.search(api, body), enabled: !showMap || bounds !== undefined });
  const rows = search.data?.data ?? [];
  const total = search.data?.meta.total_count ?? 0;
  const onBoundsChange = useCallback((b: MapBounds) => setBounds(b), []);
  const onMapError = useCallback(() => setMapFailed(true), []);

  return (
    <Stack gap="sm">
      <Title order={2}>営業分析マップ</Title>
      <Grid gap="sm">
        <Grid.Col span={3}>
          <Paper withBorder p="sm">
            <SalesMapFilterPanel
              key={JSON.stringify(filters)}
              state={filters}
              period={period}
              onApply={(next) => onStateChange({ ...next, ...pickMapView(state) })}
            />
          </Paper>
        </Grid.Col>
        <Grid.Col span={6}>
          <MapPanel
            showMap={showMap}
            loading={tenant.isPending}
            onMapError={onMapError}
            unavailableTestId="sales-map-unavailable"
            legend={<Legend />}
          >
            <SalesMapCanvas
              rows={rows}
              initialView={linkedView ?? initialView(tenant.data)}
              highlightedId={highlightedId}
              onHover={setHighlightedId}
              onBoundsChange={onBoundsChange}
              onViewChange={onViewChange}
            />
          </MapPanel>
        </Grid.Col>
        <Grid.Col span={3}>
          <Paper withBorder>
            <Stack gap={4} p="sm" style={{ borderBottom: '1px solid var(--mantine-color-gray-3)' }}>
              <Group gap="xs">
                <Text size="sm" data-testid="sales-map-count">
                  {search.data ? `表示件数 ${rows.length}件（該当 ${total}件）` : '読み込み中…'}
                </Text>
                {search.isFetching && <Loader size="xs" />}
              </Group>
              {search.data && total > rows.length && (
                <Text size="xs" c="orange.9">
                  {pageFullMessage}
                </Text>
              )}
              {search.isError && (
                <Text size="xs" c="red">
                  医療機関を読み込めませんでした。時間をおいて再度お試しください。
                </Text>
              )}
            </Stack>
            <ScrollArea h={mapListHeight}>
              <SalesMapList rows={rows} highlightedId={highlightedId} onHover={setHighlightedId} />
            </ScrollArea>
          </Paper>
        </Grid.Col>
      </Grid>
    </Stack>
  );
}
