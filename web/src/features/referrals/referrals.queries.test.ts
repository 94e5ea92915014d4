import { renderHook } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import type { ApiClient } from '../../api/api-client.ts';
import { cachedKeys } from '../../test/cached-keys.ts';
import { withDefaults } from '../data-analysis/analysis-periods.ts';
import { dataAnalysisQueries } from '../data-analysis/data-analysis.queries.ts';
import { defaultVisitOptions, visitChartQueries } from '../data-analysis/visit-charts.queries.ts';
import {
  currentFiscalYear,
  lastThreeFiscalYears,
  useCreateReferral,
  useDeleteReverseReferral,
  type ReferralInputValues,
} from './referrals.queries.ts';

describe('fiscal years', () => {
  it('start in April, Tokyo time', () => {
    expect(currentFiscalYear(new Date('2026-03-31T14:59:00Z'))).toBe(2025);
    expect(currentFiscalYear(new Date('2026-03-31T15:00:00Z'))).toBe(2026);
    expect(lastThreeFiscalYears(new Date('2026-11-24T00:00:00Z'))).toEqual({ from: '2024-04-01', to: '2027-03-31' });
  });
});

describe('hand entries', () => {
  const f = withDefaults({}, '2026-11-29');
  const id = '00000000-0000-4000-8000-000000000009';

  function setUp() {
    const api = {
      createMedicalInstitutionReferral: vi.fn(async () => ({})),
      deleteMedicalInstitutionReverseReferral: vi.fn(async () => undefined),
    };
    const typed = api as unknown as ApiClient;
    const keys = {
      trend: dataAnalysisQueries.referralsTrend(typed, f).queryKey,
      aggregation: dataAnalysisQueries.aggregation(typed, f, { from: f.from, to: f.to }, ['own_department']).queryKey,
      effectiveness: dataAnalysisQueries.effectiveness(typed, f).queryKey,
      tags: dataAnalysisQueries.tags(typed).queryKey,
      visits: visitChartQueries.visits(typed, f, defaultVisitOptions).queryKey,
    };
    return cachedKeys(api, keys);
  }

  it('make the referral figures of the top page stale, not its visit charts or tag choices', async () => {
    const { wrapper, invalidated } = setUp();
    const { result } = renderHook(() => useCreateReferral(), { wrapper });
    await result.current.mutateAsync({ id, body: {} as ReferralInputValues });
    expect(invalidated()).toEqual(['aggregation', 'effectiveness', 'trend']);
  });

  it('do so when one is withdrawn', async () => {
    const { wrapper, invalidated } = setUp();
    const { result } = renderHook(() => useDeleteReverseReferral(), { wrapper });
    await result.current.mutateAsync({ institutionId: id, id });
    expect(invalidated()).toEqual(['aggregation', 'effectiveness', 'trend']);
  });
});
