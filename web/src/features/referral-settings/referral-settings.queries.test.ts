import { renderHook } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import type { ApiClient } from '../../api/api-client.ts';
import { cachedKeys } from '../../test/cached-keys.ts';
import { withDefaults } from '../data-analysis/analysis-periods.ts';
import { dataAnalysisQueries } from '../data-analysis/data-analysis.queries.ts';
import { visitChartQueries } from '../data-analysis/visit-charts.queries.ts';
import { useSaveAdmissionPeriod } from './referral-settings.queries.ts';

describe('saving the admission period', () => {
  it("makes the top page's referral figures stale (stays are linked again), not the visit charts", async () => {
    const api = { updateReferralAdmissionPeriod: vi.fn(async () => ({})) };
    const typed = api as unknown as ApiClient;
    const f = withDefaults({}, '2026-11-29');
    const { wrapper, invalidated } = cachedKeys(api, {
      trend: dataAnalysisQueries.referralsTrend(typed, f).queryKey,
      effectiveness: dataAnalysisQueries.effectiveness(typed, f).queryKey,
      staffs: visitChartQueries.staffs(typed).queryKey,
    });
    const { result } = renderHook(() => useSaveAdmissionPeriod(), { wrapper });
    await result.current.mutateAsync({ admission_period_days: 30 } as never);
    expect(invalidated()).toEqual(['effectiveness', 'trend']);
  });
});
