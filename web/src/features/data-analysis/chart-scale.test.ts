import { describe, expect, it } from 'vitest';
import { labelEvery, linePath, valueAxis } from './chart-scale.ts';

describe('valueAxis', () => {
  it('rounds the maximum up to whole steps of 1, 2, 2.5 or 5 times a power of ten, at most four of them', () => {
    expect(valueAxis(253)).toEqual([0, 100, 200, 300]);
    expect(valueAxis(41)).toEqual([0, 20, 40, 60]);
    expect(valueAxis(100)).toEqual([0, 25, 50, 75, 100]);
    expect(valueAxis(0)).toEqual([0, 1]);
    expect(valueAxis(3)).toEqual([0, 1, 2, 3]);
    expect(valueAxis(9)).toEqual([0, 5, 10]);
    expect(valueAxis(1_000_000)).toEqual([0, 250_000, 500_000, 750_000, 1_000_000]);
  });

  it('keeps a fixed maximum', () => {
    expect(valueAxis(37, { fixedMax: 100 })).toEqual([0, 25, 50, 75, 100]);
  });

  it('always starts at zero and reaches the data in at most four equal whole steps, without wasting the axis', () => {
    const maxima = [
      ...Array.from({ length: 2000 }, (_, i) => i),
      ...Array.from({ length: 500 }, (_, i) => 2000 + i * 19_997),
    ];
    for (const max of maxima) {
      const axis = valueAxis(max);
      const step = axis[1]!;
      expect(axis[0]).toBe(0);
      expect(axis.at(-1)).toBeGreaterThanOrEqual(max);
      expect(axis.length).toBeLessThanOrEqual(5);
      expect(Number.isInteger(step)).toBe(true);
      axis.forEach((v, i) => expect(v).toBe(i * step));
      // The top step is needed: without it the axis would not reach the data.
      if (max > 1) expect(axis.at(-2)).toBeLessThan(max);
    }
  });
});

describe('labelEvery', () => {
  it('labels every bucket up to twelve, then every n-th', () => {
    expect(labelEvery(12)).toBe(1);
    expect(labelEvery(13)).toBe(2);
    expect(labelEvery(31)).toBe(3);
  });
});

describe('linePath', () => {
  it('draws through the middle of each band and breaks at a missing value', () => {
    expect(linePath([0, 50, null, 100], 100)).toBe('M125 100L375 50M875 0');
  });
});
