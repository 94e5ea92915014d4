/**
 * A distance as a person on foot reads it: tens of metres below a kilometre (GPS is not better than
 * that), kilometres with one decimal above.
 */
export function formatDistance(metres: number): string {
  const tens = Math.round(metres / 10) * 10;
  if (tens < 1000) return `${tens} m`;
  return `${(metres / 1000).toFixed(1)} km`;
}

/** YYYY-MM-DD as the screens write dates (no time zone: it is a calendar date). */
export const slashDate = (isoDate: string) => isoDate.replaceAll('-', '/');
