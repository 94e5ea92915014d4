/**
 * The whole months a period touches as the fewest rollup rows: each 年度 (April–March) wholly inside
 * as one row, then each quarter wholly inside (fiscal quarters are calendar quarters), then months.
 * A 年度 against the last reads one row per institution and year instead of twelve.
 */
export function rollupPieces(period: { from: string; to: string }): {
  fiscal_year: string[];
  quarter: string[];
  month: string[];
} {
  const index = (day: string) => Number(day.slice(0, 4)) * 12 + Number(day.slice(5, 7)) - 1;
  const day = (i: number) => `${Math.floor(i / 12)}-${String((i % 12) + 1).padStart(2, '0')}-01`;
  const pieces = { fiscal_year: [] as string[], quarter: [] as string[], month: [] as string[] };
  const last = index(period.to);
  for (let i = index(period.from); i <= last;) {
    if (i % 12 === 3 && i + 11 <= last) {
      pieces.fiscal_year.push(day(i));
      i += 12;
    } else if (i % 3 === 0 && i + 2 <= last) {
      pieces.quarter.push(day(i));
      i += 3;
    } else {
      pieces.month.push(day(i));
      i += 1;
    }
  }
  return pieces;
}
