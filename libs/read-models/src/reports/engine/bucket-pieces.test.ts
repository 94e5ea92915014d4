import { describe, expect, it } from 'vitest';
import { piecesOf } from './bucket-pieces.ts';

const bucket = (from: string, to: string) => ({ key: from, label: '', from, to });
const shape = (from: string, to: string) => piecesOf('p', bucket(from, to)).map((p) => `${p.kind} ${p.from}..${p.to}`);

describe('rollup pieces of a bucket', () => {
  it('answers a whole month, quarter or 年度 with its monthly rows', () => {
    expect(shape('2025-04-01', '2025-04-30')).toEqual(['month 2025-04-01..2025-04-30']);
    expect(shape('2025-04-01', '2025-06-30')).toEqual([
      'month 2025-04-01..2025-04-30',
      'month 2025-05-01..2025-05-31',
      'month 2025-06-01..2025-06-30',
    ]);
    expect(shape('2024-04-01', '2025-03-31')).toHaveLength(12);
  });

  it('answers a week with its one or two segments (Monday–Sunday parts of a month)', () => {
    // 2025-04-07 is a Monday.
    expect(shape('2025-04-07', '2025-04-13')).toEqual(['segment 2025-04-07..2025-04-13']);
    // The week of 2025-04-28 crosses into May.
    expect(shape('2025-04-28', '2025-05-04')).toEqual([
      'segment 2025-04-28..2025-04-30',
      'segment 2025-05-01..2025-05-04',
    ]);
  });

  it('answers days a clipped bucket leaves outside whole segments and months with day ranges', () => {
    // A period from a Wednesday: its first week bucket starts mid-segment.
    expect(shape('2025-04-09', '2025-04-13')).toEqual(['day 2025-04-09..2025-04-13']);
    // A month bucket clipped to a period ending on a Wednesday.
    expect(shape('2025-05-01', '2025-05-14')).toEqual([
      'segment 2025-05-01..2025-05-04',
      'segment 2025-05-05..2025-05-11',
      'day 2025-05-12..2025-05-14',
    ]);
    // From mid-month to past the next month's end.
    expect(shape('2025-01-30', '2025-03-02')).toEqual([
      'day 2025-01-30..2025-01-31',
      'month 2025-02-01..2025-02-28',
      'segment 2025-03-01..2025-03-02',
    ]);
  });

  it('covers every day of the bucket exactly once', () => {
    for (const [from, to] of [
      ['2024-02-10', '2024-03-20'],
      ['2023-12-31', '2024-01-01'],
      ['2025-06-15', '2026-02-03'],
    ] as const) {
      const days: string[] = [];
      for (const p of piecesOf('c', bucket(from, to)))
        for (
          let d = new Date(`${p.from}T00:00:00Z`);
          d <= new Date(`${p.to}T00:00:00Z`);
          d.setUTCDate(d.getUTCDate() + 1)
        )
          days.push(d.toISOString().slice(0, 10));
      const expected: string[] = [];
      for (let d = new Date(`${from}T00:00:00Z`); d <= new Date(`${to}T00:00:00Z`); d.setUTCDate(d.getUTCDate() + 1))
        expected.push(d.toISOString().slice(0, 10));
      expect(days).toEqual(expected);
    }
  });
});
