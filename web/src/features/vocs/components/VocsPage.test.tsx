import { MantineProvider } from '@mantine/core';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { fireEvent, render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { Suspense } from 'react';
import { describe, expect, it, vi } from 'vitest';
import { ServicesProvider, type AppServices } from '../../../app/services-context.tsx';
import { testServices } from '../../../test/render-app.tsx';
import { VocsPage, type VocsParams } from './VocsPage.tsx';

const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

function renderPage(params: VocsParams, isOwner: boolean) {
  const api = {
    listVocs: vi.fn(async () => ({ data: [], meta: { total_count: 0, page: 1, per_page: 20, total_pages: 0 } })),
    listVocGroups: vi.fn(async () => [{ id: id(7), name: '紹介・返書' }]),
    getSummary: vi.fn(async ({ params }: { params: { id: string } }) => ({ id: params.id, name: '富士見病院' })),
    searchMedicalInstitutions: vi.fn(async () => ({
      data: [{ id: id(9), name: '駿河クリニック', address: '静岡県静岡市葵区1-1' }],
      meta: { total_count: 1, page: 1, per_page: 20, total_pages: 1 },
    })),
  };
  const services: AppServices = { ...testServices(), api: api as unknown as AppServices['api'] };
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  const onParamsChange = vi.fn();
  render(
    <MantineProvider>
      <QueryClientProvider client={client}>
        <ServicesProvider value={services}>
          <Suspense fallback="loading">
            <VocsPage params={params} isOwner={isOwner} onParamsChange={onParamsChange} />
          </Suspense>
        </ServicesProvider>
      </QueryClientProvider>
    </MantineProvider>,
  );
  return { api, onParamsChange };
}

describe('vocs page', () => {
  it('asks the API for the filters of the URL and puts a new filter back into it, from page 1', async () => {
    const { api, onParamsChange } = renderPage({ page: 2, priority: 'HIGH', group: id(7) }, true);
    expect(await screen.findByText('条件に合うVOCはありません。')).toBeInTheDocument();
    expect(api.listVocs).toHaveBeenCalledWith(
      expect.objectContaining({ query: { page: 2, per_page: 20, priority: 'HIGH', voc_group_id: id(7) } }),
    );
    await userEvent.click(screen.getByRole('combobox', { name: 'ステータス' }));
    await userEvent.click(await screen.findByRole('option', { name: '対応中', hidden: true }));
    expect(onParamsChange).toHaveBeenCalledWith({ status: 'IN_PROGRESS', page: 1 });
    expect(screen.getByRole('button', { name: 'グループ管理' })).toBeInTheDocument();
  });

  it('narrows by the reported period and by an institution picked by name, shown by its name', async () => {
    const { api, onParamsChange } = renderPage(
      { page: 1, from: '2026-10-01', to: '2026-10-31', institution: id(8) },
      true,
    );
    expect(await screen.findByText('条件に合うVOCはありません。')).toBeInTheDocument();
    expect(api.listVocs).toHaveBeenCalledWith(
      expect.objectContaining({
        query: {
          page: 1,
          per_page: 20,
          medical_institution_id: id(8),
          reported_from: '2026-10-01',
          reported_to: '2026-10-31',
        },
      }),
    );
    // The URL has the institution's id: its name is shown.
    await waitFor(() => expect(screen.getByRole('combobox', { name: '医療機関' })).toHaveValue('富士見病院'));
    fireEvent.change(screen.getByLabelText('報告日（開始）'), { target: { value: '2026-09-01' } });
    expect(onParamsChange).toHaveBeenCalledWith({ from: '2026-09-01', page: 1 });
    const institution = screen.getByRole('combobox', { name: '医療機関' });
    await userEvent.clear(institution);
    await userEvent.type(institution, '駿河');
    await userEvent.click(await screen.findByRole('option', { name: /駿河クリニック/, hidden: true }));
    expect(onParamsChange).toHaveBeenCalledWith({ institution: id(9), page: 1 });
  });

  it('does not ask for a period that ends before it starts, and says so', async () => {
    const { api } = renderPage({ page: 1, from: '2026-10-31', to: '2026-10-01' }, true);
    expect(await screen.findByText('終了日は開始日以降の日付を指定してください')).toBeInTheDocument();
    expect(api.listVocs).toHaveBeenCalledWith(expect.objectContaining({ query: { page: 1, per_page: 20 } }));
  });

  it('shows no group management to a member', async () => {
    renderPage({ page: 1 }, false);
    expect(await screen.findByText('条件に合うVOCはありません。')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'グループ管理' })).not.toBeInTheDocument();
  });
});
