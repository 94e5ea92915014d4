import {
  createMemoryHistory,
  createRootRoute,
  createRoute,
  createRouter,
  Outlet,
  RouterProvider,
} from '@tanstack/react-router';
import { MantineProvider } from '@mantine/core';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { CommunicationLabel } from '@renkei/contracts';
import { Suspense } from 'react';
import { describe, expect, it, vi } from 'vitest';
import { ApiError } from '../../../api/api-errors.ts';
import { ServicesProvider, type AppServices } from '../../../app/services-context.tsx';
import { toast } from '../../../app/toast.ts';
import { reloadedConflictMessage } from '../../../errors/mutation-errors.ts';
import { testServices } from '../../../test/render-app.tsx';
import { CommunicationLabelsPanel } from './CommunicationLabelsPanel.tsx';

const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const label = (n: number, patch: Partial<CommunicationLabel>): CommunicationLabel => ({
  id: id(n),
  name: `ラベル${n}`,
  communication_type: 'visit',
  component_type: 'text',
  order: n,
  description: '',
  selections: [],
  is_required: false,
  version: 0,
  ...patch,
});

// Visit labels 1 and 3 with a phone label between them in the one order the API keeps.
const labels = [
  label(1, { name: '面談相手', is_required: true }),
  label(2, { name: '電話の用件', communication_type: 'phone' }),
  label(3, { name: '次回訪問予定' }),
];

/** The list as the query service answers it: the order's version (its number of saves) as the ETag. */
function renderPanel(canEdit = true, orderVersion = 2) {
  const api = {
    listCommunicationLabels: vi.fn(async ({ onEtag }: { onEtag?: (etag: string | null) => void }) => {
      onEtag?.(`"${orderVersion}"`);
      return labels;
    }),
    orderCommunicationLabels: vi.fn(
      async (_args: { body: { label_ids: string[] }; ifMatch?: string | number }): Promise<CommunicationLabel[]> =>
        labels,
    ),
  };
  const services: AppServices = { ...testServices(), api: api as unknown as AppServices['api'] };
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  // The panel links to the import page, so it renders inside a router.
  const root = createRootRoute({ component: () => <Outlet /> });
  const page = createRoute({
    getParentRoute: () => root,
    path: '/labels',
    component: () => (
      <Suspense fallback={null}>
        <CommunicationLabelsPanel canEdit={canEdit} />
      </Suspense>
    ),
  });
  const router = createRouter({
    routeTree: root.addChildren([page]),
    history: createMemoryHistory({ initialEntries: ['/app/labels'] }),
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
  return api;
}

describe('communication labels panel', () => {
  it("lists one type's labels in their order, marks required ones, and switches type", async () => {
    renderPanel();
    const table = await screen.findByTestId('communication-label-table');
    const names = within(table)
      .getAllByRole('row')
      .slice(1)
      .map((r) => r.getAttribute('data-label-name'));
    expect(names).toEqual(['面談相手', '次回訪問予定']);
    expect(within(table).getByText('必須')).toBeInTheDocument();
    await userEvent.click(screen.getByText('電話（1）'));
    expect(await screen.findByText('電話の用件')).toBeInTheDocument();
    expect(screen.queryByText('面談相手')).not.toBeInTheDocument();
    await userEvent.click(screen.getByText('郵送物（0）'));
    expect(screen.getByTestId('communication-labels-empty')).toHaveTextContent('「郵送物」のラベルはまだありません');
  });

  it("moves a label among its type's labels and keeps the other types' labels where they were", async () => {
    const api = renderPanel();
    await screen.findByTestId('communication-label-table');
    await userEvent.click(screen.getByRole('button', { name: '次回訪問予定を上へ' }));
    await waitFor(() => expect(api.orderCommunicationLabels).toHaveBeenCalled());
    expect(api.orderCommunicationLabels.mock.calls[0]![0]).toMatchObject({
      body: { label_ids: [id(3), id(2), id(1)] },
      // The order's version as read, so a reorder saved by someone else since is refused.
      ifMatch: '"2"',
    });
  });

  it('says so and shows the saved order when someone else reordered the labels since they were read', async () => {
    const shown = vi.spyOn(toast, 'error').mockImplementation(() => {});
    const api = renderPanel(true, 5);
    api.orderCommunicationLabels.mockRejectedValueOnce(new ApiError(409, '競合しました'));
    await screen.findByTestId('communication-label-table');
    expect(api.listCommunicationLabels).toHaveBeenCalledTimes(1);
    await userEvent.click(screen.getByRole('button', { name: '次回訪問予定を上へ' }));
    await waitFor(() => expect(shown).toHaveBeenCalledWith(reloadedConflictMessage));
    expect(api.orderCommunicationLabels.mock.calls[0]![0]).toMatchObject({ ifMatch: '"5"' });
    // The list (and its order version) is read again.
    await waitFor(() => expect(api.listCommunicationLabels).toHaveBeenCalledTimes(2));
    shown.mockRestore();
  });

  it('says before a delete that the recorded values stay readable, marked as deleted', async () => {
    renderPanel();
    const table = await screen.findByTestId('communication-label-table');
    const row = within(table)
      .getAllByRole('row')
      .find((r) => r.getAttribute('data-label-name') === '面談相手')!;
    await userEvent.click(within(row).getByRole('button', { name: '削除' }));
    const dialog = await screen.findByRole('dialog', { name: 'ラベルを削除' });
    expect(dialog).toHaveTextContent('ラベル「面談相手」を削除しますか？');
    expect(dialog).toHaveTextContent('「面談相手（削除済み）」として表示とCSV出力に残ります');
    expect(dialog).not.toHaveTextContent('表示されなくなります');
  });

  it('shows members the labels without the editing controls', async () => {
    renderPanel(false);
    await screen.findByTestId('communication-label-table');
    expect(screen.queryByTestId('create-communication-label')).not.toBeInTheDocument();
    expect(screen.getByText('ラベルの作成・変更はオーナーのみ行えます。')).toBeInTheDocument();
  });
});
