import type { RankingResult } from '@renkei/contracts';
import { describe, expect, it } from 'vitest';
import { joinRankings } from './rankings.ts';

const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const ranking = (rows: [number, string, number][]): RankingResult => ({
  labels: [],
  data: rows.map(([n, name, total], i) => ({
    rank: i + 1,
    medical_institution: { id: id(n), name },
    total,
    values: [],
  })),
});

describe('joinRankings', () => {
  it('gives each institution its change, with absent ones of a complete ranking counted as 0', () => {
    const now = ranking([
      [1, '駿河クリニック', 10],
      [2, '清水医院', 6],
      [3, '新規診療所', 2],
    ]);
    const before = ranking([
      [2, '清水医院', 9],
      [1, '駿河クリニック', 4],
      [4, '閉院医院', 5],
    ]);
    const r = joinRankings(now, before, 500);
    expect(r.top.map((x) => [x.name, x.total, x.previous, x.change])).toEqual([
      ['駿河クリニック', 10, 4, 6],
      ['清水医院', 6, 9, -3],
      ['新規診療所', 2, 0, 2],
    ]);
    expect(r.risers.map((x) => x.name)).toEqual(['駿河クリニック', '新規診療所']);
    expect(r.fallers.map((x) => [x.name, x.change])).toEqual([
      ['閉院医院', -5],
      ['清水医院', -3],
    ]);
    expect(r.lost.map((x) => [x.name, x.previous, x.total])).toEqual([['閉院医院', 5, 0]]);
    expect(r.truncated).toBe(false);
  });

  it('leaves the change unknown beyond a ranking cut at the limit, and finds no lost institution then', () => {
    const now = ranking([
      [1, 'A', 10],
      [2, 'B', 8],
    ]);
    const before = ranking([
      [1, 'A', 3],
      [3, 'C', 7],
    ]);
    const r = joinRankings(now, before, 2);
    expect(r.top.map((x) => x.change)).toEqual([7, null]);
    expect(r.lost).toEqual([]);
    expect(r.fallers).toEqual([]);
    expect(r.truncated).toBe(true);
  });

  it('shows no change without a comparison period', () => {
    const r = joinRankings(ranking([[1, 'A', 1]]), null, 500);
    expect(r.top[0]!.change).toBeNull();
    expect(r.risers).toEqual([]);
    expect(r.truncated).toBe(false);
  });
});
