import { MantineProvider } from '@mantine/core';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { createMemoryHistory, createRootRoute, createRouter, RouterProvider } from '@tanstack/react-router';
import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { Suspense } from 'react';
import { describe, expect, it, vi } from 'vitest';
import { ServicesProvider, type AppServices } from '../../../app/services-context.tsx';
import { testServices } from '../../../test/render-app.tsx';
import { AlertDetailPage } from './AlertDetailPage.tsx';

const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

function renderDetail(targetCount: number, page: number, rows: object[] = []) {
  const alert = {
    id: id(1),
    name: '紹介減少',
    condition_summary: '前月比で紹介が2件以上減少',
    condition_parameters: { triggers: {}, filters: {} },
    alert_date: '2026-03-01',
    target_count: targetCount,
    is_archived: false,
  };
  const api = {
    getAlert: vi.fn(async () => alert),
    // The institutions are on page 1; a page past the last is empty.
    listAlertMedicalInstitutions: vi.fn(async () => ({
      data: rows,
      meta: { total_count: targetCount, page, per_page: 50, total_pages: targetCount === 0 ? 0 : 1 },
    })),
  };
  const onParamsChange = vi.fn();
  const services: AppServices = { ...testServices(), api: api as unknown as AppServices['api'] };
  const root = createRootRoute({
    component: () => (
      <Suspense fallback={<p>loading</p>}>
        <AlertDetailPage id={id(1)} params={{ page }} onParamsChange={onParamsChange} />
      </Suspense>
    ),
  });
  const router = createRouter({ routeTree: root, history: createMemoryHistory({ initialEntries: ['/'] }) });
  render(
    <MantineProvider>
      <ServicesProvider value={services}>
        <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
          <RouterProvider router={router as never} />
        </QueryClientProvider>
      </ServicesProvider>
    </MantineProvider>,
  );
  return { onParamsChange };
}

describe('alert detail', () => {
  it('a page past the last is not "resolved": it leads back to page 1', async () => {
    const { onParamsChange } = renderDetail(12, 3);
    await userEvent.click(await screen.findByRole('button', { name: '1ページ目へ' }));
    expect(onParamsChange).toHaveBeenCalledWith({ page: 1 });
    expect(screen.queryByText(/なくなりました/)).not.toBeInTheDocument();
  });

  it('writes the last visit as every other screen does (2026/02/14)', async () => {
    renderDetail(2, 1, [
      {
        id: id(2),
        name: '駿河クリニック',
        address: '静岡市',
        referral_count: 1,
        comparison_referral_count: 4,
        rate_of_referral_change: -0.75,
        last_visit_date: '2026-02-14',
      },
      {
        id: id(3),
        name: '清水医院',
        address: '静岡市',
        referral_count: 0,
        comparison_referral_count: 3,
        rate_of_referral_change: -1,
        last_visit_date: null,
      },
    ]);
    expect(await screen.findByRole('cell', { name: '2026/02/14' })).toBeInTheDocument();
    expect(screen.getByRole('cell', { name: '訪問なし' })).toBeInTheDocument();
  });

  it('says the institutions are gone only when the alert counts none', async () => {
    renderDetail(0, 1);
    expect(await screen.findByText('この月の再集計で条件に合う医療機関はなくなりました。')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: '1ページ目へ' })).not.toBeInTheDocument();
  });
});
