import type { ImportStatus } from '@renkei/contracts';
import { QueryClient, QueryClientProvider, type QueryKey } from '@tanstack/react-query';
import { renderHook } from '@testing-library/react';
import { createElement, type ReactNode } from 'react';
import { describe, expect, it, vi } from 'vitest';
import type { ApiClient } from '../../api/api-client.ts';
import { withDefaults } from './analysis-periods.ts';
import { dataAnalysisQueries } from './data-analysis.queries.ts';
import type { FigureSource } from './invalidate-figures.ts';
import { useRefreshFiguresAfterImports } from './useRefreshFiguresAfterImports.ts';
import { defaultVisitOptions, visitChartQueries } from './visit-charts.queries.ts';

const api = {} as ApiClient;
const f = withDefaults({}, '2026-11-29');
const historyKey = ['some-imports', 'list'] as const;

const keys = {
  trend: dataAnalysisQueries.referralsTrend(api, f).queryKey,
  ranking: dataAnalysisQueries.ranking(api, f, { from: f.from, to: f.to }).queryKey,
  effectiveness: dataAnalysisQueries.effectiveness(api, f).queryKey,
  visits: visitChartQueries.visits(api, f, defaultVisitOptions).queryKey,
  tags: dataAnalysisQueries.tags(api).queryKey,
  staffs: visitChartQueries.staffs(api).queryKey,
} satisfies Record<string, QueryKey>;

const record = (id: string, status: ImportStatus) => ({ id, status, created_at: '2026-11-29T10:00:00.000Z' });

function setUp(source: FigureSource, cachedHistory?: ReturnType<typeof record>[]) {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  for (const key of Object.values<QueryKey>(keys)) client.setQueryData(key, { cached: true });
  if (cachedHistory) client.setQueryData([...historyKey, 1], { data: cachedHistory });
  const wrapper = ({ children }: { children: ReactNode }) => createElement(QueryClientProvider, { client }, children);
  renderHook(() => useRefreshFiguresAfterImports([...historyKey], source), { wrapper });
  const invalidate = vi.spyOn(client, 'invalidateQueries');
  /** One poll of the history's first page, as its query fetches it. */
  const poll = (...rows: ReturnType<typeof record>[]) =>
    client.fetchQuery({ queryKey: [...historyKey, 1], queryFn: async () => ({ data: rows }) });
  const invalidated = () =>
    Object.entries(keys)
      .filter(([, key]) => client.getQueryState(key)?.isInvalidated)
      .map(([name]) => name)
      .sort();
  return { client, invalidate, poll, invalidated };
}

describe('figures after imports', () => {
  it('are made stale once when an import of referral data ends, not on the polls after', async () => {
    const { invalidate, poll, invalidated } = setUp('referral_data');
    await poll(record('a', 'waiting'));
    await poll(record('a', 'processing'));
    expect(invalidate).not.toHaveBeenCalled();
    await poll(record('a', 'completed'));
    expect(invalidate).toHaveBeenCalledTimes(1);
    expect(invalidated()).toEqual(['effectiveness', 'ranking', 'trend']);
    await poll(record('a', 'completed'));
    await poll(record('a', 'completed'));
    expect(invalidate).toHaveBeenCalledTimes(1);
  });

  it('are the effectiveness and the visit charts when a communication import ends', async () => {
    const { invalidate, poll, invalidated } = setUp('communications');
    await poll(record('a', 'processing'));
    await poll(record('a', 'failed'));
    expect(invalidated()).toEqual(['effectiveness', 'visits']);
    expect(invalidate).toHaveBeenCalledTimes(2);
    await poll(record('a', 'failed'));
    expect(invalidate).toHaveBeenCalledTimes(2);
  });

  it('stay when the history only shows imports over before it was opened', async () => {
    const { invalidate, poll } = setUp('referral_data');
    await poll(record('a', 'completed'), record('b', 'failed'));
    await poll(record('a', 'completed'), record('b', 'failed'));
    expect(invalidate).not.toHaveBeenCalled();
  });

  it('are asked again when the page is next entered, within the minute they would have stayed fresh', async () => {
    const { client, poll } = setUp('referral_data');
    const referralsComparison = vi.fn(async () => ({ labels: [], series: [] }));
    // What the route's loader does on entering the page (`prefetchDataAnalysis`).
    const enter = () =>
      client.prefetchQuery(dataAnalysisQueries.referralsTrend({ referralsComparison } as unknown as ApiClient, f));
    await poll(record('a', 'processing'));
    await enter();
    expect(referralsComparison).not.toHaveBeenCalled();
    await poll(record('a', 'completed'));
    await enter();
    expect(referralsComparison).toHaveBeenCalledTimes(1);
  });

  it('take the history already cached as the first look: an import left running there has ended since', async () => {
    const { invalidate, poll, invalidated } = setUp('referral_data', [record('a', 'processing')]);
    await poll(record('a', 'completed'));
    expect(invalidate).toHaveBeenCalledTimes(1);
    expect(invalidated()).toContain('trend');
  });
});
