import { MantineProvider } from '@mantine/core';
import type { ChartData } from '@renkei/contracts';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import {
  createMemoryHistory,
  createRootRoute,
  createRoute,
  createRouter,
  Outlet,
  RouterProvider,
} from '@tanstack/react-router';
import { configure, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { ServicesProvider, type AppServices } from '../../../app/services-context.tsx';
import { testServices } from '../../../test/render-app.tsx';
import type { AnalysisFilters } from '../analysis-search.ts';
import { VisitAnalysisPanel } from './VisitAnalysisPanel.tsx';

const staffId = '00000000-0000-4000-8000-000000000001';
const labels = ['2026年4月', '2026年5月', '2026年6月'];
const filters: AnalysisFilters = {
  from: '2026-04-01',
  to: '2026-06-30',
  unit: 'month',
  cmp: 'none',
  own: [],
  ft: ['hospital'],
  tags: [],
  pref: [],
  city: [],
};

function charts(visit: number[], newVisit: number[], doctors: number[], actions: number[]) {
  const total = visit.map((v, i) => v + newVisit[i]!);
  const rate = (part: number[]) => part.map((p, i) => (total[i] ? Math.round((p * 1000) / total[i]!) / 10 : null));
  const chart = (series: [string, string, (number | null)[]][]): ChartData => ({
    labels,
    series: series.map(([key, name, values]) => ({ key, name, values })),
  });
  return {
    visits: vi.fn(async () =>
      chart([
        ['visits', '訪問件数', total],
        ['visit', '訪問', visit],
        ['new_visit', '新規訪問', newVisit],
      ]),
    ),
    visitsDoctorInterviewRates: vi.fn(async () =>
      chart([
        ['doctor_interview_rate', '医師面談率（%）', rate(doctors)],
        ['doctor_interviews', '医師面談件数', doctors],
        ['visits', '訪問件数', total],
      ]),
    ),
    visitsNextActionRates: vi.fn(async () =>
      chart([
        ['next_action_rate', 'ネクストアクション設定率（%）', rate(actions)],
        ['next_actions', 'ネクストアクション設定件数', actions],
        ['visits', '訪問件数', total],
      ]),
    ),
    listStaffs: vi.fn(async () => [{ id: staffId, name: '連携 花子', cs_account: false }]),
  };
}

function renderPanel(api: ReturnType<typeof charts>) {
  const root = createRootRoute({ component: () => <Outlet /> });
  const page = createRoute({
    getParentRoute: () => root,
    path: '/data_analysis',
    component: () => <VisitAnalysisPanel filters={filters} />,
  });
  const router = createRouter({
    routeTree: root.addChildren([page]),
    history: createMemoryHistory({ initialEntries: ['/app/data_analysis'] }),
    basepath: '/app',
  });
  const services: AppServices = { ...testServices(), api: api as unknown as AppServices['api'] };
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  render(
    <MantineProvider>
      <ServicesProvider value={services}>
        <QueryClientProvider client={client}>
          <RouterProvider router={router as never} />
        </QueryClientProvider>
      </ServicesProvider>
    </MantineProvider>,
  );
}

configure({ asyncUtilTimeout: 5000 });

describe('visit analysis panel', () => {
  it("shows the period's visits, doctor interview and next action rates, and sends the page's institution filters", async () => {
    const api = charts([3, 1, 0], [1, 0, 0], [2, 1, 0], [1, 0, 0]);
    renderPanel(api);
    expect(await screen.findByTestId('visit-total')).toHaveTextContent('5');
    expect(screen.getByTestId('visit-doctor-rate')).toHaveTextContent('60.0%');
    expect(screen.getByTestId('visit-next-action-rate')).toHaveTextContent('20.0%');
    const table = within(screen.getByTestId('visit-analysis-panel')).getByRole('table');
    expect(table).toHaveTextContent('2026年4月');
    expect(table).toHaveTextContent('50.0%');
    // A month without visits has no rate: a dash, not 0%.
    expect(within(table).getAllByRole('row').at(-1)).toHaveTextContent('—');
    expect(api.visits).toHaveBeenCalledWith(
      expect.objectContaining({
        body: expect.objectContaining({
          period: { from: '2026-04-01', to: '2026-06-30' },
          period_unit: 'month',
          facility_type_ids: ['hospital'],
          user_ids: [],
          communication_types: [],
        }),
      }),
    );
  });

  it('asks again for new visits only', async () => {
    const api = charts([3, 1, 0], [1, 0, 0], [2, 1, 0], [1, 0, 0]);
    renderPanel(api);
    await screen.findByTestId('visit-total');
    await userEvent.click(screen.getByRole('radio', { name: '新規訪問' }));
    await waitFor(() =>
      expect(api.visitsNextActionRates).toHaveBeenCalledWith(
        expect.objectContaining({ body: expect.objectContaining({ communication_types: ['new_visit'] }) }),
      ),
    );
  });

  it('says so when the period has no visit', async () => {
    renderPanel(charts([0, 0, 0], [0, 0, 0], [0, 0, 0], [0, 0, 0]));
    expect(await screen.findByTestId('visit-analysis-empty')).toHaveTextContent('この期間の訪問記録はありません');
  });
});
