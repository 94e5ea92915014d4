import { QueryClient, QueryClientProvider, type QueryKey } from '@tanstack/react-query';
import { renderHook } from '@testing-library/react';
import { createElement, type ReactNode } from 'react';
import { describe, expect, it, vi } from 'vitest';
import type { ApiClient } from '../../api/api-client.ts';
import { ServicesProvider, type AppServices } from '../../app/services-context.tsx';
import { testServices } from '../../test/render-app.tsx';
import { withDefaults } from '../data-analysis/analysis-periods.ts';
import { dataAnalysisQueries } from '../data-analysis/data-analysis.queries.ts';
import { visitChartQueries } from '../data-analysis/visit-charts.queries.ts';
import { useSaveAdmissionPeriod } from './referral-settings.queries.ts';

describe('saving the admission period', () => {
  it("makes the top page's referral figures stale (stays are linked again), not the visit charts", async () => {
    const api = { updateReferralAdmissionPeriod: vi.fn(async () => ({})) };
    const f = withDefaults({}, '2026-11-29');
    const keys = {
      trend: dataAnalysisQueries.referralsTrend(api as unknown as ApiClient, f).queryKey,
      effectiveness: dataAnalysisQueries.effectiveness(api as unknown as ApiClient, f).queryKey,
      staffs: visitChartQueries.staffs(api as unknown as ApiClient).queryKey,
    } satisfies Record<string, QueryKey>;
    const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    for (const key of Object.values<QueryKey>(keys)) client.setQueryData(key, { cached: true });
    const services: AppServices = { ...testServices(), api: api as unknown as AppServices['api'] };
    const wrapper = ({ children }: { children: ReactNode }) =>
      createElement(QueryClientProvider, { client }, createElement(ServicesProvider, { value: services, children }));
    const { result } = renderHook(() => useSaveAdmissionPeriod(), { wrapper });
    await result.current.mutateAsync({ admission_period_days: 30 } as never);
    const invalidated = Object.entries(keys)
      .filter(([, key]) => client.getQueryState(key)?.isInvalidated)
      .map(([name]) => name)
      .sort();
    expect(invalidated).toEqual(['effectiveness', 'trend']);
  });
});
