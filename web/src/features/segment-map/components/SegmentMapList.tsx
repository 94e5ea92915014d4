import { Box, Group, Stack, Text } from '@mantine/core';
import type { SegmentMapInstitution, SegmentMapSegment } from '@renkei/contracts';
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
 * The institutions beside the map under their segment's heading (segments by priority, most referrals
 * first within one); hovering highlights the pin, clicking opens the CRM page.
 */
export function SegmentMapList({ segments, rows, colors, highlightedId, onHover }: SegmentMapListProps) {
  if (rows.length === 0)
    return (
      <Text c="dimmed" size="sm" p="sm">
        期間内に紹介のあった医療機関がありません
      </Text>
    );
  return (
    <Stack gap={0}>
      {segments
        .filter((s) => s.institution_count > 0)
        .map((s) => (
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
              {rows
                .filter((r) => r.segment_id === s.segment_id)
                .map((r) => (
                  <MapListEntry
                    key={r.id}
                    id={r.id}
                    name={r.name}
                    highlighted={r.id === highlightedId}
                    onHover={onHover}
                  >
                    <Text size="xs" c="dimmed">
                      紹介 {r.referral_count}件
                    </Text>
                    <Text size="xs" c="dimmed">
                      入院率 {rate(r.referral_admission_rate)}
                    </Text>
                  </MapListEntry>
                ))}
            </Stack>
          </section>
        ))}
    </Stack>
  );
}
