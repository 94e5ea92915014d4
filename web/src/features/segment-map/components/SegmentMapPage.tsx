import { Grid, Group, Loader, Paper, ScrollArea, Stack, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import type { SegmentMapInstitution } from '@renkei/contracts';
import { useCallback, useEffect, useMemo, useState } from 'react';
import { useServices } from '../../../app/services-context.tsx';
import { referenceDataQueries } from '../../reference-data/reference-data.queries.ts';
import { CsvExportButton } from '../../../ui/CsvExportButton.tsx';
import { preloadSalesMapCanvas, SalesMapCanvas } from '../../sales-map/components/LazySalesMapCanvas.tsx';
import { mapViewOf, pickMapView, withoutMapView, type MapViewParams } from '../../sales-map/map-view.ts';
import { initialView } from '../../sales-map/components/SalesMapPage.tsx';
import { MapPanel, mapListHeight } from '../../sales-map/components/MapPanel.tsx';
import { segmentMapQueries } from '../segment-map.queries.ts';
import { periodOf, toSegmentMapBody, type SegmentMapState } from '../segment-map-state.ts';
import { restColor, segmentColors } from '../segment-colors.ts';
import { saveSegmentMapCsv } from '../segment-map-csv.ts';
import { SegmentMapFilterPanel } from './SegmentMapFilterPanel.tsx';
import { SegmentMapLegend } from './SegmentMapLegend.tsx';
import { SegmentMapList } from './SegmentMapList.tsx';

export { webglAvailable } from '../../sales-map/components/SalesMapPage.tsx';

export interface SegmentMapPageProps {
  state: SegmentMapState;
  onStateChange: (state: SegmentMapState) => void;
  /** The view the map settled on, for the address (replacing its entry: panning adds no history). */
  onViewChange?: ((view: Required<MapViewParams>) => void) | undefined;
  /** Whether the browser can draw the map (WebGL2); the legend and list work without it. */
  webgl?: boolean;
}

function tooltip(row: SegmentMapInstitution): string {
  return [
    row.name,
    row.address,
    `セグメント: ${row.segment_label}`,
    `紹介数: ${row.referral_count}件`,
    `入院率: ${row.referral_admission_rate === null ? '—' : `${row.referral_admission_rate}%`}`,
  ].join('\n');
}

/** 診療圏分析: the period's referring institutions on the map, coloured by their referral admission segment. */
export function SegmentMapPage({ state, onStateChange, onViewChange, webgl = true }: SegmentMapPageProps) {
  const { api } = useServices();
  const tenant = useQuery(referenceDataQueries.tenant(api));
  const [mapFailed, setMapFailed] = useState(false);
  const showMap = webgl && !mapFailed;
  useEffect(() => {
    if (showMap) preloadSalesMapCanvas();
  }, [showMap]);
  const [highlightedId, setHighlightedId] = useState<string | null>(null);
  // The address's view opens the map; afterwards the map leads and the address follows it.
  const [linkedView] = useState(() => mapViewOf(state));
  const filters = withoutMapView(state);
  const today = useMemo(() => new Date(), []);
  const period = periodOf(state, today);
  const result = useQuery(segmentMapQueries.map(api, toSegmentMapBody(state, today)));
  const segments = useMemo(() => result.data?.segments ?? [], [result.data]);
  const rows = useMemo(() => result.data?.data ?? [], [result.data]);
  // Drawn smallest first, so the big referrers (the key segments) lie on top of the crowd of small ones.
  const pins = useMemo(() => [...rows].reverse(), [rows]);
  const colors = useMemo(() => segmentColors(segments), [segments]);
  const colorOf = useCallback((r: SegmentMapInstitution) => colors.get(r.segment_id) ?? restColor, [colors]);
  const onMapError = useCallback(() => setMapFailed(true), []);

  return (
    <Stack gap="sm">
      <Title order={2}>診療圏分析</Title>
      <Grid gap="sm">
        <Grid.Col span={3}>
          <Stack gap="sm">
            <Paper withBorder p="sm">
              <SegmentMapFilterPanel
                key={JSON.stringify(filters)}
                state={filters}
                period={period}
                onApply={(next) => onStateChange({ ...next, ...pickMapView(state) })}
              />
            </Paper>
            <Paper withBorder p="sm">
              <Text size="sm" fw={700} mb="xs">
                セグメント
              </Text>
              {result.data ? <SegmentMapLegend segments={segments} colors={colors} /> : <Loader size="sm" />}
            </Paper>
          </Stack>
        </Grid.Col>
        <Grid.Col span={6}>
          <MapPanel
            showMap={showMap}
            loading={tenant.isPending}
            onMapError={onMapError}
            unavailableTestId="segment-map-unavailable"
          >
            <SalesMapCanvas
              rows={pins}
              initialView={linkedView ?? initialView(tenant.data)}
              highlightedId={highlightedId}
              onHover={setHighlightedId}
              colorOf={colorOf}
              tooltipOf={tooltip}
              testId="segment-map-canvas"
              onViewChange={onViewChange}
            />
          </MapPanel>
        </Grid.Col>
        <Grid.Col span={3}>
          <Paper withBorder>
            <Stack gap={4} p="sm" style={{ borderBottom: '1px solid var(--mantine-color-gray-3)' }}>
              <Group gap="xs" justify="space-between">
                <Group gap="xs">
                  <Text size="sm" data-testid="segment-map-count">
                    {result.data ? `紹介元 ${rows.length}件` : '読み込み中…'}
                  </Text>
                  {result.isFetching && <Loader size="xs" />}
                </Group>
                <CsvExportButton
                  size="xs"
                  testId="segment-map-export"
                  disabled={rows.length === 0}
                  download={async (encoding) => saveSegmentMapCsv(segments, rows, period, encoding)}
                />
              </Group>
              {result.data && result.data.without_location_count > 0 && (
                <Text size="xs" c="dimmed" data-testid="segment-map-without-location">
                  位置情報のない{result.data.without_location_count}件は地図と一覧に含まれません
                </Text>
              )}
              {result.isError && (
                <Text size="xs" c="red">
                  医療機関を読み込めませんでした。時間をおいて再度お試しください。
                </Text>
              )}
            </Stack>
            <ScrollArea h={mapListHeight}>
              <SegmentMapList
                segments={segments}
                rows={rows}
                colors={colors}
                highlightedId={highlightedId}
                onHover={setHighlightedId}
              />
            </ScrollArea>
          </Paper>
        </Grid.Col>
      </Grid>
    </Stack>
  );
}
