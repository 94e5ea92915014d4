/**
 * Every percentage on screen, with one decimal always: 50.0% beside 33.3% in a column, the same figure
 * written the same way on the analysis page, an institution's page and the email reports.
 */
export function formatPercent(percent: number | null | undefined, options: { signed?: boolean; none?: string } = {}) {
  if (percent === null || percent === undefined || !Number.isFinite(percent)) return options.none ?? '—';
  const fixed = percent.toFixed(1);
  // -0.04 rounds to "-0.0": no change is shown without a sign.
  const text = Number(fixed) === 0 ? '0.0' : fixed;
  return `${options.signed && Number(text) > 0 ? '+' : ''}${text}%`;
}

/** A rate kept as a fraction (0.5 = 50 %), as the APIs answer delivery, opening and change rates. */
export const formatFraction = (
  fraction: number | null | undefined,
  options: { signed?: boolean; none?: string } = {},
): string => formatPercent(fraction === null || fraction === undefined ? fraction : fraction * 100, options);
