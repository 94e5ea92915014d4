import { describe, expect, it } from 'vitest';
import { rollupPieces } from './medical-institutions.queries.ts';

const monthsOf = (pieces: ReturnType<typeof rollupPieces>) => {
  const index = (day: string) => Number(day.slice(0, 4)) * 12 + Number(day.slice(5, 7)) - 1;
  return [
    ...pieces.fiscal_year.flatMap((d) => Array.from({ length: 12 }, (_, k) => index(d) + k)),
    ...pieces.quarter.flatMap((d) => [0, 1, 2].map((k) => index(d) + k)),
    ...pieces.month.map(index),
  ].sort((a, b) => a - b);
};

describe('rollupPieces', () => {
  it('reads a whole 年度 as one row', () => {
    expect(rollupPieces({ from: '2025-04-01', to: '2026-03-31' })).toEqual({
      fiscal_year: ['2025-04-01'],
      quarter: [],
      month: [],
    });
  });

  it('cuts a period into 年度, quarters and months that touch every month once', () => {
    expect(rollupPieces({ from: '2024-02-15', to: '2025-08-03' })).toEqual({
      fiscal_year: ['2024-04-01'],
      quarter: ['2025-04-01'],
      month: ['2024-02-01', '2024-03-01', '2025-07-01', '2025-08-01'],
    });
    expect(rollupPieces({ from: '2025-05-10', to: '2025-05-10' })).toEqual({
      fiscal_year: [],
      quarter: [],
      month: ['2025-05-01'],
    });
  });

  it('covers exactly the months of any period', () => {
    for (let from = 0; from < 40; from++)
      for (let length = 1; length < 40; length += 3) {
        const day = (i: number) => `${2020 + Math.floor(i / 12)}-${String((i % 12) + 1).padStart(2, '0')}-10`;
        const pieces = rollupPieces({ from: day(from), to: day(from + length - 1) });
        expect(monthsOf(pieces)).toEqual(Array.from({ length }, (_, k) => 2020 * 12 + from + k));
      }
  });
});
