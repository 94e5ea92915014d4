import type { SegmentMapSegment } from '@renkei/contracts';

export type Rgba = [number, number, number, number];

/** Segments by priority: strong to pale, so the key partners stand out; the rest segment grey. */
const palette: Rgba[] = [
  [224, 49, 49, 230],
  [247, 103, 7, 230],
  [250, 176, 5, 230],
  [55, 178, 77, 230],
  [28, 126, 214, 230],
  [112, 72, 232, 230],
  [214, 51, 108, 230],
  [12, 166, 120, 230],
];
export const restColor: Rgba = [134, 142, 150, 200];

/** Colour per segment id (null: the rest), from the segments' order (by priority). */
export function segmentColors(segments: readonly SegmentMapSegment[]): Map<string | null, Rgba> {
  const colors = new Map<string | null, Rgba>();
  segments
    .filter((s) => s.segment_id !== null)
    .forEach((s, i) => colors.set(s.segment_id, palette[i % palette.length]!));
  colors.set(null, restColor);
  return colors;
}

export const cssColor = (c: Rgba) => `rgb(${c[0]}, ${c[1]}, ${c[2]})`;
