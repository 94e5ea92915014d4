import { act, fireEvent, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { describe, expect, it, vi } from 'vitest';
import type { SalesMapMedicalInstitution } from '@renkei/contracts';
import type { SalesMapState } from '../sales-map-state.ts';
import { renderInRouter } from '../../../test/render-in-router.tsx';
import { SalesMapPage, noWebglMessage, pageFullMessage } from './SalesMapPage.tsx';

const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const row = (n: number, patch: Partial<SalesMapMedicalInstitution> = {}): SalesMapMedicalInstitution => ({
  id: id(n),
  name: `医療機関${n}`,
  address: `静岡県静岡市${n}`,
  latitude: 34.9,
  longitude: 138.4,
  running_status: 'open',
  facility_type: null,
  tags: [],
  referral_count: 10 - n,
  last_visit_date: n === 1 ? '2026-10-01' : null,
  visit_count: n === 1 ? 2 : 0,
  ...patch,
});

function renderPage(total: number, state: SalesMapState = {}) {
  const rows = [row(1), row(2)];
  const api = {
    searchForSalesMap: vi.fn(async (_request: { body: Record<string, unknown> }) => ({
      data: rows,
      meta: { total_count: total, page: 1, per_page: 500, total_pages: 1 },
    })),
    listFacilityTypeGroups: vi.fn(async () => [
      { id: '1', name: '病院', facility_types: [{ id: '01', name: '一般病院' }] },
    ]),
    listTags: vi.fn(async () => ({
      data: [
        { id: id(90), name: '重点', description: '', group_name: null, version: 1, created_at: '', updated_at: '' },
      ],
      meta: { total_count: 1, page: 1, per_page: 100, total_pages: 1 },
    })),
    getCurrentUser: vi.fn(async () => ({ tenant: { latitude: 34.96, longitude: 138.4 } })),
  };
  const onStateChange = vi.fn();
  // The address as the route holds it: a test moves the map by setting it, as the map's settling does.
  let setAddress: (state: SalesMapState) => void = () => {};
  function Route() {
    const [address, setState] = useState(state);
    setAddress = setState;
    return <SalesMapPage state={address} onStateChange={onStateChange} webgl={false} />;
  }
  const view = renderInRouter(() => <Route />, { api, paths: ['/crms/$id'] });
  return { ...view, api, onStateChange, moveMap: (next: SalesMapState) => act(() => setAddress(next)) };
}

describe('sales map page', () => {
  it('without WebGL shows the message and lists the institutions of all Japan', async () => {
    const { api } = renderPage(2);
    expect(await screen.findByText(noWebglMessage)).toBeInTheDocument();
    expect(await screen.findByText('医療機関1')).toBeInTheDocument();
    expect(screen.getByText('紹介 9件')).toBeInTheDocument();
    expect(screen.getByText('最終訪問 2026/10/01')).toBeInTheDocument();
    expect(screen.getByText('最終訪問 —')).toBeInTheDocument();
    expect(screen.getByTestId('sales-map-count')).toHaveTextContent('表示件数 2件（該当 2件）');
    expect(screen.queryByText(pageFullMessage)).not.toBeInTheDocument();
    expect(screen.getByText('地図: Natural Earth (world-atlas)')).toBeInTheDocument();
    const body = api.searchForSalesMap.mock.calls[0]![0];
    expect(body.body.bounds).toBeUndefined();
    expect(body.body.per_page).toBe(500);
  });

  it('says when the page is full', async () => {
    renderPage(1200);
    expect(await screen.findByText(pageFullMessage)).toBeInTheDocument();
  });

  it('sends the period and filters it was given', async () => {
    const { api } = renderPage(2, {
      from: '2025-04-01',
      to: '2026-03-31',
      min_referral_count: 3,
      visit: 'first_visit',
      tag_ids: [id(90)],
    });
    await screen.findByText('医療機関1');
    const period = { from: '2025-04-01', to: '2026-03-31' };
    expect(api.searchForSalesMap).toHaveBeenCalledWith(
      expect.objectContaining({
        body: expect.objectContaining({
          referral_settings: { period, min_referral_count: 3 },
          visits: { period, visit: 'first_visit' },
          tag_ids: [id(90)],
        }),
      }),
    );
  });

  it('applies the filter panel as one change', async () => {
    const { onStateChange } = renderPage(2);
    await screen.findByText('医療機関1');
    await userEvent.type(screen.getByRole('textbox', { name: '最低紹介数' }), '5');
    await userEvent.selectOptions(screen.getByRole('combobox', { name: '訪問' }), 'return_visit');
    expect(onStateChange).not.toHaveBeenCalled();
    await userEvent.click(screen.getByRole('button', { name: '絞り込む' }));
    expect(onStateChange).toHaveBeenCalledWith(
      expect.objectContaining({ min_referral_count: 5, visit: 'return_visit', from: expect.any(String) }),
    );
    await userEvent.click(screen.getByRole('button', { name: 'クリア' }));
    expect(onStateChange).toHaveBeenLastCalledWith({});
  });

  it('keeps the map view when filters are applied or cleared, and a draft while the map moves', async () => {
    const { onStateChange, moveMap, api } = renderPage(2, { min_referral_count: 1, lat: 35, lng: 139, zoom: 9 });
    await screen.findByText('医療機関1');
    const min = screen.getByRole('textbox', { name: '最低紹介数' });
    await userEvent.clear(min);
    await userEvent.type(min, '5');
    const searches = api.searchForSalesMap.mock.calls.length;
    moveMap({ min_referral_count: 1, lat: 35.5, lng: 139.25, zoom: 10 });
    expect(min).toHaveValue('5');
    // The view alone is no new search (the rectangle is what the map searches).
    expect(api.searchForSalesMap).toHaveBeenCalledTimes(searches);
    await userEvent.click(screen.getByRole('button', { name: '絞り込む' }));
    expect(onStateChange).toHaveBeenLastCalledWith(
      expect.objectContaining({ min_referral_count: 5, lat: 35.5, lng: 139.25, zoom: 10 }),
    );
    await userEvent.click(screen.getByRole('button', { name: 'クリア' }));
    expect(onStateChange).toHaveBeenLastCalledWith({ lat: 35.5, lng: 139.25, zoom: 10 });
  });

  it('refuses a period that ends before it starts', async () => {
    const { onStateChange } = renderPage(2);
    await screen.findByText('医療機関1');
    const from = screen.getByLabelText('期間（開始）');
    fireEvent.change(from, { target: { value: '2030-01-01' } });
    await userEvent.click(screen.getByRole('button', { name: '絞り込む' }));
    expect(await screen.findByText('期間の終了日は開始日以降の日付を指定してください')).toBeInTheDocument();
    expect(onStateChange).not.toHaveBeenCalled();
  });

  it('highlights an entry on hover and opens its CRM page on click', async () => {
    const { router } = renderPage(2);
    const entry = (await screen.findByText('医療機関2')).closest('button')!;
    await userEvent.hover(entry);
    expect(entry).toHaveAttribute('data-highlighted');
    await userEvent.unhover(entry);
    expect(entry).not.toHaveAttribute('data-highlighted');
    await userEvent.click(entry);
    await waitFor(() => expect(router.state.location.pathname).toBe(`/crms/${id(2)}`));
  });
});
