import { MantineProvider } from '@mantine/core';
import type { ActionList, ActionListItem } from '@renkei/contracts';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import {
  createMemoryHistory,
  createRootRoute,
  createRoute,
  createRouter,
  Outlet,
  RouterProvider,
} from '@tanstack/react-router';
import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { Suspense } from 'react';
import { describe, expect, it, vi } from 'vitest';
import { ServicesProvider, type AppServices } from '../../../app/services-context.tsx';
import { testServices } from '../../../test/render-app.tsx';
import { ApiError } from '../../../api/api-errors.ts';
import { referralPeriodsOf } from '../../medical-institutions/search-state.ts';
import type { ActionListsParams } from '../action-lists.queries.ts';
import { ActionListsPage } from './ActionListsPage.tsx';

const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const meta = (total: number) => ({ total_count: total, page: 1, per_page: 50, total_pages: total > 0 ? 1 : 0 });

const list: ActionList = {
  id: id(1),
  name: '紹介減少先フォロー（11月）',
  status: 'in_progress',
  medical_institution_count: 2,
  actioned_count: 1,
  created_by: { id: id(9), name: '連携 花子' },
  created_at: '2026-11-01T00:00:00.000Z',
  version: 3,
};
const item = (n: number, status: ActionListItem['status']): ActionListItem => ({
  medical_institution: {
    id: id(100 + n),
    name: `さくら内科クリニック${n}`,
    address: '東京都千代田区1-1',
    tel: '03-0000-0000',
    running_status: 'open',
  },
  status,
  updated_by: { id: id(9), name: '連携 花子' },
  updated_at: '2026-11-02T00:00:00.000Z',
});

function renderPage(
  params: ActionListsParams,
  lists: ActionList[],
  items: ActionListItem[] = [],
  detail: ActionList | null = lists.find((l) => l.id === params.id) ?? null,
) {
  const api = {
    listActionLists: vi.fn(async () => ({ data: lists, meta: meta(lists.length) })),
    getActionList: vi.fn(async () => {
      if (detail === null) throw new ApiError(404, 'Not Found');
      return detail;
    }),
    listItems: vi.fn(async () => ({ data: items, meta: meta(items.length) })),
    updateItemsStatus: vi.fn(async () => ({ count: 1 })),
    updateActionListStatus: vi.fn(async () => ({ ...list, status: 'completed' })),
  };
  const services: AppServices = { ...testServices(), api: api as unknown as AppServices['api'] };
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  const onParamsChange = vi.fn();
  const root = createRootRoute({ component: () => <Outlet /> });
  const page = createRoute({
    getParentRoute: () => root,
    path: '/action_lists',
    component: () => (
      <Suspense fallback="loading">
        <ActionListsPage params={params} onParamsChange={onParamsChange} />
      </Suspense>
    ),
  });
  const others = ['/crms/$id', '/medical_institutions_search'].map((path) =>
    createRoute({ getParentRoute: () => root, path, component: () => null }),
  );
  const router = createRouter({
    routeTree: root.addChildren([page, ...others]),
    history: createMemoryHistory({ initialEntries: ['/app/action_lists'] }),
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
  return { api, onParamsChange };
}

const noSelection: ActionListsParams = { page: 1, id: undefined, item_page: 1, status: 'all' };

describe('action lists page', () => {
  it('says what to do when there is no list yet', async () => {
    renderPage(noSelection, []);
    expect(await screen.findByText('アクションリストはまだありません')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'パートナー検索を開く' })).toBeInTheDocument();
  });

  it('shows each list with its status, counts and progress, and selects one into the URL', async () => {
    const { onParamsChange, api } = renderPage(noSelection, [list]);
    const row = await screen.findByTestId('action-list-row');
    expect(within(row).getByText('対応中')).toBeInTheDocument();
    expect(within(row).getByTestId('action-list-count')).toHaveTextContent('2');
    expect(within(row).getByTestId('action-list-actioned')).toHaveTextContent('1');
    expect(within(row).getByText('50%')).toBeInTheDocument();
    expect(within(row).getByText('連携 花子')).toBeInTheDocument();
    await userEvent.click(within(row).getByRole('button', { name: `${list.name}の医療機関を表示` }));
    expect(onParamsChange).toHaveBeenCalledWith({ id: list.id, item_page: 1, status: 'all' });
    // 完了にする sends the list's version as If-Match.
    await userEvent.click(within(row).getByRole('button', { name: '完了にする' }));
    expect(api.updateActionListStatus).toHaveBeenCalledWith({
      params: { id: list.id },
      body: { status: 'completed' },
      ifMatch: 3,
    });
  });

  it("lists the selected list's institutions, filtered by the URL, and marks the checked ones", async () => {
    const { api, onParamsChange } = renderPage(
      { ...noSelection, id: list.id, status: 'not_actioned' },
      [list],
      [item(1, 'not_actioned'), item(2, 'actioned')],
    );
    const rows = await screen.findAllByTestId('action-list-item-row');
    expect(rows).toHaveLength(2);
    expect(api.listItems).toHaveBeenCalledWith(
      expect.objectContaining({
        params: { id: list.id },
        query: { page: 1, per_page: 50, status: 'not_actioned', ...referralPeriodsOf(undefined) },
      }),
    );
    expect(within(rows[0]!).getByRole('link', { name: 'さくら内科クリニック1' })).toHaveAttribute(
      'href',
      `/app/crms/${id(101)}`,
    );
    const markButton = screen.getByRole('button', { name: '対応済みにする' });
    expect(markButton).toBeDisabled();
    await userEvent.click(screen.getByRole('checkbox', { name: 'さくら内科クリニック1を選択' }));
    expect(screen.getByText('1件を選択中')).toBeInTheDocument();
    await userEvent.click(markButton);
    expect(api.updateItemsStatus).toHaveBeenCalledWith({
      params: { id: list.id },
      body: { medical_institution_ids: [id(101)], status: 'actioned' },
    });
    await userEvent.click(screen.getByRole('radio', { name: 'すべて' }));
    expect(onParamsChange).toHaveBeenCalledWith({ status: 'all', item_page: 1 });
  });

  it('selects the whole page with the header checkbox', async () => {
    renderPage({ ...noSelection, id: list.id }, [list], [item(1, 'not_actioned'), item(2, 'actioned')]);
    await screen.findAllByTestId('action-list-item-row');
    await userEvent.click(screen.getByRole('checkbox', { name: 'このページの医療機関をすべて選択' }));
    expect(screen.getByText('2件を選択中')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'リストから外す' })).toBeEnabled();
  });

  it('shows a list linked by id that is not on the page of lists, read by its id', async () => {
    const other = { ...list, id: id(2), name: '年末挨拶状送付先' };
    const { api } = renderPage({ ...noSelection, id: other.id }, [list], [item(1, 'not_actioned')], other);
    expect(await screen.findAllByTestId('action-list-item-row')).toHaveLength(1);
    expect(api.getActionList).toHaveBeenCalledWith(expect.objectContaining({ params: { id: other.id } }));
    expect(screen.getByTestId('action-list-items')).toHaveTextContent('年末挨拶状送付先');
    expect(screen.queryByTestId('action-list-missing')).toBeNull();
  });

  it('says in words that a linked list is gone', async () => {
    const { api } = renderPage({ ...noSelection, id: id(3) }, [list], [], null);
    expect(await screen.findByTestId('action-list-missing')).toHaveTextContent(
      '選択したアクションリストは見つかりません。削除された可能性があります。',
    );
    expect(api.listItems).not.toHaveBeenCalled();
  });

  it("shows each institution's referral figures and last visit, for the period the user picks", async () => {
    const stopped: ActionListItem = {
      ...item(1, 'not_actioned'),
      medical_institution: {
        ...item(1, 'not_actioned').medical_institution,
        referral_count: 2,
        comparison_referral_count: 8,
        rate_of_referral_change: -0.75,
        last_visit_date: '2026-08-03',
      },
    };
    const { api } = renderPage({ ...noSelection, id: list.id }, [list], [stopped]);
    const [row] = await screen.findAllByTestId('action-list-item-row');
    const cell = (column: string) => row!.querySelector(`[data-column="${column}"]`);
    expect(cell('referral_count')).toHaveTextContent('2');
    expect(cell('comparison_referral_count')).toHaveTextContent('8');
    expect(cell('rate_of_referral_change')).toHaveTextContent('-75.0%');
    expect(cell('last_visit_date')).toHaveTextContent('2026/08/03');
    // The periods the figures count are said, as on the partner search.
    const thisYear = referralPeriodsOf(undefined);
    expect(screen.getByTestId('action-list-referral-periods')).toHaveTextContent(
      `紹介数は ${thisYear.referral_period.from.replaceAll('-', '/')}〜`,
    );
    // Another span asks again with its periods.
    await userEvent.click(screen.getByTestId('action-list-referral-span'));
    await userEvent.click(await screen.findByRole('option', { name: '紹介数: 前年度', hidden: true }));
    const lastYear = referralPeriodsOf('last_fiscal_year');
    // Generous waits: the refetch and the render after it are slow on a shared machine.
    await vi.waitFor(
      () =>
        expect(api.listItems).toHaveBeenLastCalledWith(
          expect.objectContaining({ query: { page: 1, per_page: 50, status: 'all', ...lastYear } }),
        ),
      { timeout: 10_000 },
    );
    await vi.waitFor(
      () =>
        expect(screen.getByTestId('action-list-referral-periods')).toHaveTextContent(
          `紹介数は ${lastYear.referral_period.from.replaceAll('-', '/')}〜${lastYear.referral_period.to.replaceAll('-', '/')}`,
        ),
      { timeout: 10_000 },
    );
  });
});
