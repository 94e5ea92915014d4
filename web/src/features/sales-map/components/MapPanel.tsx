import { Alert, Group, Loader, Paper, Stack, Text } from '@mantine/core';
import { Component, type ReactNode } from 'react';

export const noWebglMessage =
  'この環境では地図を表示できません（WebGLに対応していません）。一覧から医療機関を確認できます。';
const attribution = '地図: Natural Earth (world-atlas)';

/*
 * The map and the list beside it fill the screen's height, not a fixed 620 px: on a 1366×768 office PC the
 * fixed map ran under the footer with its legend, and on a 1280×1024 one it left a third of the screen empty.
 * The list is the map less its own header (count, messages).
 */
const mapHeight = 'max(26rem, calc(100dvh - 14rem))';
export const mapListHeight = 'max(22.25rem, calc(100dvh - 17.75rem))';

/** A map that fails while drawing leaves the list and the message instead of an error page. */
class MapBoundary extends Component<{ fallback: ReactNode; onError: () => void; children: ReactNode }> {
  override state = { failed: false };
  static getDerivedStateFromError() {
    return { failed: true };
  }
  override componentDidCatch() {
    this.props.onError();
  }
  override render() {
    return this.state.failed ? this.props.fallback : this.props.children;
  }
}

/**
 * The map column of the sales map and the segment map: the map (a loader until the tenant's location is
 * known; the message when the browser cannot draw it or drawing failed), then the legend and the basemap's
 * attribution under it.
 */
export function MapPanel({
  showMap,
  loading,
  onMapError,
  unavailableTestId,
  legend,
  children,
}: {
  showMap: boolean;
  loading: boolean;
  onMapError: () => void;
  unavailableTestId: string;
  legend?: ReactNode;
  children: ReactNode;
}) {
  const unavailable = (
    <Alert color="yellow" data-testid={unavailableTestId}>
      {noWebglMessage}
    </Alert>
  );
  return (
    <Stack gap={4}>
      {showMap ? (
        <Paper withBorder h={mapHeight} style={{ overflow: 'hidden' }}>
          <MapBoundary fallback={unavailable} onError={onMapError}>
            {loading ? <Loader m="md" /> : children}
          </MapBoundary>
        </Paper>
      ) : (
        unavailable
      )}
      <Group justify={legend ? 'space-between' : 'flex-end'}>
        {legend}
        <Text size="xs" c="dimmed">
          {attribution}
        </Text>
      </Group>
    </Stack>
  );
}
