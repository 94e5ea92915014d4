import { describe, expect, it } from 'vitest';
import { lastFiscalYear, segmentMapSearch, toSegmentMapBody } from './segment-map-state.ts';

describe('segment map state', () => {
  it('defaults to the last whole 年度', () => {
    expect(lastFiscalYear(new Date(2026, 10, 30))).toEqual({ from: '2025-04-01', to: '2026-03-31' });
    expect(lastFiscalYear(new Date(2026, 3, 1))).toEqual({ from: '2025-04-01', to: '2026-03-31' });
    expect(lastFiscalYear(new Date(2026, 2, 31))).toEqual({ from: '2024-04-01', to: '2025-03-31' });
  });

  it('keeps a valid period and departments from the address and drops the rest', () => {
    const dep = '00000000-0000-4000-8000-000000000001';
    expect(segmentMapSearch({ from: '2025-04-01', to: '2025-09-30', own_department_ids: [dep] })).toEqual({
      from: '2025-04-01',
      to: '2025-09-30',
      own_department_ids: [dep],
    });
    // A list with a bad entry resets whole, as every page's list parameters do.
    expect(segmentMapSearch({ own_department_ids: [dep, 'x'] })).toEqual({});
    expect(segmentMapSearch({ from: '2025-10-01', to: '2025-09-30' })).toEqual({});
    expect(toSegmentMapBody({}, new Date(2026, 10, 30))).toEqual({
      period: { from: '2025-04-01', to: '2026-03-31' },
      own_department_ids: [],
    });
  });
});
