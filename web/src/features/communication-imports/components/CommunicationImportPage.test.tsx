import { MantineProvider } from '@mantine/core';
import { QueryClient, QueryClientProvider, type QueryKey } from '@tanstack/react-query';
import {
  createMemoryHistory,
  createRootRoute,
  createRoute,
  createRouter,
  Outlet,
  RouterProvider,
} from '@tanstack/react-router';
import { act, render, screen, waitFor } from '@testing-library/react';
import type { ImportRecord, ImportStatus } from '@renkei/contracts';
import { describe, expect, it, vi } from 'vitest';
import type { ApiClient } from '../../../api/api-client.ts';
import { ServicesProvider, type AppServices } from '../../../app/services-context.tsx';
import { testServices } from '../../../test/render-app.tsx';
import { withDefaults } from '../../data-analysis/analysis-periods.ts';
import { dataAnalysisQueries } from '../../data-analysis/data-analysis.queries.ts';
import { defaultVisitOptions, visitChartQueries } from '../../data-analysis/visit-charts.queries.ts';
import { communicationImportQueries } from '../communication-imports.queries.ts';
import { CommunicationImportPage } from './CommunicationImportPage.tsx';

const f = withDefaults({}, '2026-11-29');
const none = {} as ApiClient;

/** What a communication import might make stale, each cached as another screen left it. */
const keys = {
  communications: ['communications', 'list', { page: 1 }],
  trend: dataAnalysisQueries.referralsTrend(none, f).queryKey,
  ranking: dataAnalysisQueries.ranking(none, f, { from: f.from, to: f.to }).queryKey,
  effectiveness: dataAnalysisQueries.effectiveness(none, f).queryKey,
  visits: visitChartQueries.visits(none, f, defaultVisitOptions).queryKey,
  staffs: visitChartQueries.staffs(none).queryKey,
} satisfies Record<string, QueryKey>;

const record = (status: ImportStatus): ImportRecord => ({
  id: '00000000-0000-4000-8000-000000000001',
  filename: 'visits.csv',
  status,
  error_messages: [],
  imported_row_count: 0,
  failed_row_count: 0,
  unprocessed_row_count: 0,
  abortion_row_number: null,
  created_at: '2026-11-29T10:00:00.000Z',
  created_by: null,
  import_type: 'communication',
});

function renderPage() {
  let rows = [record('processing')];
  const api = {
    listCommunicationImports: vi.fn(async () => ({
      data: rows,
      meta: { total_count: rows.length, page: 1, per_page: 20, total_pages: 1 },
    })),
  };
  const services: AppServices = { ...testServices(), api: api as unknown as AppServices['api'] };
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  const seed = () => {
    for (const key of Object.values<QueryKey>(keys)) client.setQueryData(key, { cached: true });
  };
  seed();
  // The page links to the communication list, so it renders inside a router.
  const root = createRootRoute({ component: () => <Outlet /> });
  const page = createRoute({ getParentRoute: () => root, path: '/imports', component: CommunicationImportPage });
  const router = createRouter({
    routeTree: root.addChildren([page]),
    history: createMemoryHistory({ initialEntries: ['/app/imports'] }),
    basepath: '/app',
  });
  render(
    <MantineProvider>
      <ServicesProvider value={services}>
        <QueryClientProvider client={client}>
          <RouterProvider router={router as never} />
        </QueryClientProvider>
      </ServicesProvider>
    </MantineProvider>,
  );
  const poll = (...next: ImportRecord[]) => {
    rows = next;
    return act(() => client.refetchQueries({ queryKey: communicationImportQueries.all, type: 'active' }));
  };
  const invalidated = () =>
    Object.entries(keys)
      .filter(([, key]) => client.getQueryState(key)?.isInvalidated)
      .map(([name]) => name)
      .sort();
  return { poll, invalidated, seed };
}

describe('communication import page', () => {
  it('makes the communications and the figures counted from visits stale when an import ends, once', async () => {
    const { poll, invalidated, seed } = renderPage();
    await screen.findByText('visits.csv');
    await poll(record('processing'));
    expect(invalidated()).toEqual([]);
    // A failed run counts too: the chunks it recorded stay in.
    await poll(record('failed'));
    await waitFor(() => expect(invalidated()).toEqual(['communications', 'effectiveness', 'visits']));
    seed();
    await poll(record('failed'));
    await poll(record('failed'));
    expect(invalidated()).toEqual([]);
  });
});
