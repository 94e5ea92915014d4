import { Box, Group, Stack, Text } from '@mantine/core';
import type { SegmentMapInstitution, SegmentMapSegment } from '@renkei/contracts';
import { memo, useEffect, useState } from 'react';
import { MapListEntry } from '../../sales-map/components/MapListEntry.tsx';
import { cssColor, type Rgba } from '../segment-colors.ts';

export interface SegmentMapListProps {
  segments: readonly SegmentMapSegment[];
  rows: readonly SegmentMapInstitution[];
  colors: ReadonlyMap<string | null, Rgba>;
  highlightedId: string | null;
  onHover: (id: string | null) => void;
}

const rate = (r: number | null) => (r === null ? '—' : `${r}%`);

/**
 * Entries rendered at once when the rows arrive, then per later step. A year's referrers are about a
 * thousand entries: rendered in one go they held the main thread for seconds on a cold load, and the map
 * (deck.gl's start, the coastline) waited behind them. The first batch fills the list's visible height
 * several times over; the rest follow in steps with the browser free in between.
 */
export const listFirstBatch = 60;
const listStep = 200;

/** How many of the rows to render: the first batch now, then `listStep` more after each paint. */
function useProgressiveCount(rows: readonly unknown[]): number {
  const total = rows.length;
  const [shown, setShown] = useState(listFirstBatch);
  // New rows (another period) start again from the first batch, the same way.
  const [forRows, setForRows] = useState(rows);
  if (forRows !== rows) {
    setForRows(rows);
    setShown(listFirstBatch);
  }
  useEffect(() => {
    if (shown >= total) return;
    // A macrotask after the commit: the browser paints and runs the map's work before the next step.
    const timer = setTimeout(() => setShown((n) => n + listStep), 0);
    return () => clearTimeout(timer);
  }, [shown, total]);
  return Math.min(shown, total);
}

/** One entry; memoized so a hover re-renders the two entries whose highlight changes, not the whole list. */
const SegmentMapEntry = memo(function SegmentMapEntry({
  row,
  highlighted,
  onHover,
}: {
  row: SegmentMapInstitution;
  highlighted: boolean;
  onHover: (id: string | null) => void;
}) {
  return (
    <MapListEntry id={row.id} name={row.name} highlighted={highlighted} onHover={onHover}>
      <Text size="xs" c="dimmed">
        紹介 {row.referral_count}件
      </Text>
      <Text size="xs" c="dimmed">
        入院率 {rate(row.referral_admission_rate)}
      </Text>
    </MapListEntry>
  );
});

/**
 * The institutions beside the map under their segment's heading (segments by priority, most referrals
 * first within one); hovering highlights the pin, clicking opens the CRM page. Long lists render in steps
 * (see `listFirstBatch`), in list order, so the top of the list and the map come first.
 */
export function SegmentMapList({ segments, rows, colors, highlightedId, onHover }: SegmentMapListProps) {
  const shown = useProgressiveCount(rows);
  if (rows.length === 0)
    return (
      <Text c="dimmed" size="sm" p="sm">
        期間内に紹介のあった医療機関がありません
      </Text>
    );
  let budget = shown;
  return (
    <Stack gap={0} data-testid="segment-map-list" data-rendered={shown} aria-busy={shown < rows.length}>
      {segments
        .filter((s) => s.institution_count > 0)
        .map((s) => {
          const inSegment = rows.filter((r) => r.segment_id === s.segment_id);
          const visible = inSegment.slice(0, Math.max(0, budget));
          budget -= inSegment.length;
          return (
            <section key={s.segment_id ?? 'rest'} aria-label={s.label}>
              <Group gap="xs" px="sm" py={4} bg="var(--mantine-color-gray-1)">
                <Box w={10} h={10} style={{ borderRadius: '50%', background: cssColor(colors.get(s.segment_id)!) }} />
                <Text size="sm" fw={700}>
                  {s.label}
                </Text>
                <Text size="xs" c="dimmed">
                  {s.institution_count}施設
                </Text>
              </Group>
              <Stack gap={0} component="ul" style={{ listStyle: 'none', margin: 0, padding: 0 }}>
                {visible.map((r) => (
                  <SegmentMapEntry key={r.id} row={r} highlighted={r.id === highlightedId} onHover={onHover} />
                ))}
              </Stack>
            </section>
          );
        })}
    </Stack>
  );
}
