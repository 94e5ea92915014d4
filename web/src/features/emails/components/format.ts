/** A rate of the stats (0–1, or null when nothing to divide by) as the report shows it. */
export const formatRate = (rate: number | null): string => (rate === null ? '—' : `${Math.round(rate * 1000) / 10}%`);
