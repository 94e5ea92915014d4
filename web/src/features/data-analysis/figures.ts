import type { ChartData } from '@renkei/contracts';

type Series = ChartData['series'][number];

/** A share as a percentage with one decimal, from the two counts (null when there is nothing to divide). */
export function percent(part: number, whole: number): number | null {
  return whole > 0 ? Math.round((part / whole) * 1000) / 10 : null;
}

/** The change from the comparison period as a fraction (formatRate's unit); null without a base. */
export function changeRate(current: number, previous: number | null): number | null {
  return previous !== null && previous > 0 ? (current - previous) / previous : null;
}

export function sumOf(values: readonly (number | null)[]): number | null {
  let total: number | null = null;
  for (const v of values) if (v !== null) total = (total ?? 0) + v;
  return total;
}

/**
 * The period's series and the comparison period's of a comparison chart. The contract names no keys, so
 * the comparison is the series whose key says so (`comparison`, `previous`), else the second one.
 */
export function splitComparison(chart: ChartData): { current: Series | undefined; comparison: Series | undefined } {
  const isComparison = (s: Series) => /comparison|previous/i.test(s.key);
  const comparison = chart.series.find(isComparison) ?? chart.series[1];
  const current = chart.series.find((s) => s !== comparison);
  return { current, comparison };
}

/**
 * The chart without its comparison series. The comparison calls answer a comparison even when none is
 * asked (the same months of the previous 年度), so a page set to compare with nothing drops them.
 */
export function withoutComparison(chart: ChartData): ChartData {
  return { ...chart, series: chart.series.filter((s) => !/comparison|previous/i.test(s.key)) };
}

/** Whether a chart has any figure at all: every value null means the data does not cover the period. */
export function hasData(chart: ChartData): boolean {
  return chart.series.some((s) => s.values.some((v) => v !== null));
}

export const formatCount = (n: number | null): string => (n === null ? '—' : n.toLocaleString('ja-JP'));
