import { describe, expect, it } from 'vitest';
import { currentFiscalYear, lastThreeFiscalYears } from './referrals.queries.ts';

describe('fiscal years', () => {
  it('start in April, Tokyo time', () => {
    expect(currentFiscalYear(new Date('2026-03-31T14:59:00Z'))).toBe(2025);
    expect(currentFiscalYear(new Date('2026-03-31T15:00:00Z'))).toBe(2026);
    expect(lastThreeFiscalYears(new Date('2026-11-24T00:00:00Z'))).toEqual({ from: '2024-04-01', to: '2027-03-31' });
  });
});
