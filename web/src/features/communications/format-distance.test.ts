import { describe, expect, it } from 'vitest';
import { formatDistance, slashDate } from './format-distance.ts';

describe('formatDistance', () => {
  it('writes metres in tens below a kilometre and kilometres with one decimal above', () => {
    expect(formatDistance(0)).toBe('0 m');
    expect(formatDistance(346)).toBe('350 m');
    expect(formatDistance(994)).toBe('990 m');
    expect(formatDistance(996)).toBe('1.0 km');
    expect(formatDistance(1234)).toBe('1.2 km');
    expect(formatDistance(19_960)).toBe('20.0 km');
  });

  it('writes a calendar date with slashes', () => {
    expect(slashDate('2026-03-10')).toBe('2026/03/10');
  });
});
