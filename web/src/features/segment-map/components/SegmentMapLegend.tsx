import { Box, Group, Stack, Text } from '@mantine/core';
import type { SegmentMapSegment } from '@renkei/contracts';
import { cssColor, type Rgba } from '../segment-colors.ts';

export interface SegmentMapLegendProps {
  segments: readonly SegmentMapSegment[];
  colors: ReadonlyMap<string | null, Rgba>;
}

/** A line per segment (by priority, the rest last): its colour, and the institutions and referrals in it. */
export function SegmentMapLegend({ segments, colors }: SegmentMapLegendProps) {
  return (
    // A list holds only its items: the caption follows it.
    <Stack gap={4}>
      <Stack gap={2} component="ul" aria-label="セグメント凡例" style={{ listStyle: 'none', margin: 0, padding: 0 }}>
        {segments.map((s) => (
          <Group key={s.segment_id ?? 'rest'} component="li" gap="xs" wrap="nowrap">
            <Box
              w={12}
              h={12}
              style={{ flex: 'none', borderRadius: '50%', background: cssColor(colors.get(s.segment_id)!) }}
            />
            <Text size="sm" fw={500} style={{ flex: 1 }}>
              {s.label}
            </Text>
            <Text size="xs" c="dimmed">
              {s.institution_count.toLocaleString()}施設・紹介 {s.referral_count.toLocaleString()}件
            </Text>
          </Group>
        ))}
      </Stack>
      <Text size="xs" c="dimmed">
        円の大きさ: 紹介数
      </Text>
    </Stack>
  );
}
