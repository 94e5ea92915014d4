import { describe, expect, it } from 'vitest';
import { defaultPeriod, salesMapSearch, toSalesMapBody } from './sales-map-state.ts';
import { pinColor, pinRadius } from './pins.ts';

const tag = '00000000-0000-4000-8000-000000000001';

describe('sales map address', () => {
  it('keeps valid pieces and drops bad ones alone', () => {
    expect(
      salesMapSearch({
        from: '2025-04-01',
        to: '2026-03-31',
        facility_type_ids: ['01', 'x'],
        tag_ids: [tag],
        min_referral_count: '3',
        visit: 'return_visit',
      }),
    ).toEqual({ from: '2025-04-01', to: '2026-03-31', tag_ids: [tag], min_referral_count: 3, visit: 'return_visit' });
    expect(salesMapSearch({ from: '2026-03-31', to: '2025-04-01', min_referral_count: -1, visit: 'all' })).toEqual({});
    expect(salesMapSearch({ from: '2026-02-30', to: '2026-03-31' })).toEqual({});
  });

  it('defaults to the twelve whole months before this one', () => {
    expect(defaultPeriod(new Date(2026, 10, 30))).toEqual({ from: '2025-11-01', to: '2026-10-31' });
    expect(defaultPeriod(new Date(2026, 0, 5))).toEqual({ from: '2025-01-01', to: '2025-12-31' });
  });

  it('builds one period for referrals and visits, with the bounds when the map has them', () => {
    const bounds = { north: 35.2, south: 34.7, east: 138.8, west: 138.0 };
    expect(toSalesMapBody({ min_referral_count: 2 }, bounds, new Date(2026, 10, 30))).toEqual({
      referral_settings: { period: { from: '2025-11-01', to: '2026-10-31' }, min_referral_count: 2 },
      visits: { period: { from: '2025-11-01', to: '2026-10-31' }, visit: 'all' },
      bounds,
      page: 1,
      per_page: 500,
    });
  });
});

describe('pins', () => {
  it('grow with the referrals, by area and up to a limit', () => {
    expect(pinRadius(null)).toBe(4);
    expect(pinRadius(0)).toBe(4);
    expect(pinRadius(25)).toBe(14);
    expect(pinRadius(10_000)).toBe(30);
  });

  it('are coloured by a visit in the period', () => {
    expect(pinColor({ visit_count: 2 })).not.toEqual(pinColor({ visit_count: 0 }));
    expect(pinColor({ visit_count: null })).not.toEqual(pinColor({ visit_count: 0 }));
  });
});
