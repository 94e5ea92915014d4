import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { setViewportWidth } from '../../../test/render-app.tsx';
import { renderInRouter } from '../../../test/render-in-router.tsx';
import { emptySearchState, type InstitutionSearchState } from '../search-state.ts';
import { MedicalInstitutionsSearchPage } from './MedicalInstitutionsSearchPage.tsx';

afterEach(() => setViewportWidth(1280));

const row = (n: number) => ({
  id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
  code: `22100${n}`,
  name: `さくら内科${n}`,
  kana: 'サクラナイカ',
  running_status: 'open',
  status: '運営中',
  postal_code: null,
  prefecture: '22',
  city: null,
  address: '静岡県静岡市葵区1-1',
  tel: null,
  administrator_name: null,
  founder_name: null,
  longitude: null,
  latitude: null,
  facility_type: null,
  bed_count: null,
  departments: [],
  tags: [],
  phase: null,
  referral_count: 3,
  comparison_referral_count: 6,
  rate_of_referral_change: -0.5,
  last_visit_date: '2026-09-01',
  memo_content: null,
  special_note_content: null,
});

function renderPage(state: InstitutionSearchState) {
  const onStateChange = vi.fn();
  const known = {
    searchMedicalInstitutions: vi.fn(async () => ({
      data: [row(1), row(2)],
      meta: { total_count: 2, page: 1, per_page: 20, total_pages: 1 },
    })),
    listActionLists: vi.fn(async () => ({
      data: [],
      meta: { total_count: 0, page: 1, per_page: 100, total_pages: 0 },
    })),
  };
  // Reference data the page reads on the side (tenant settings …) answers empty.
  const api = new Proxy(known, {
    get: (target, key: string) => (key in target ? target[key as keyof typeof target] : vi.fn(async () => [])),
  });
  renderInRouter(() => <MedicalInstitutionsSearchPage state={state} onStateChange={onStateChange} />, {
    api,
    paths: ['/crms/$id'],
  });
  return { onStateChange };
}

describe('partner search on a phone', () => {
  it('orders the cards without column headers: by falling referrals, by the oldest visit', async () => {
    setViewportWidth(375);
    const { onStateChange } = renderPage(emptySearchState);
    expect(await screen.findAllByTestId('institution-card')).toHaveLength(2);
    expect(screen.queryByTestId('institution-table')).toBeNull();
    const sort = screen.getByTestId('phone-sort');
    expect(sort).toHaveValue('名前順');
    await userEvent.click(sort);
    await userEvent.click(await screen.findByRole('option', { name: '紹介が減った順', hidden: true }));
    expect(onStateChange).toHaveBeenLastCalledWith(
      expect.objectContaining({ sort_by: 'rate_of_referral_change', sort: 'asc', page: 1 }),
    );
    await userEvent.click(sort);
    await userEvent.click(await screen.findByRole('option', { name: '最終訪問日の古い順', hidden: true }));
    expect(onStateChange).toHaveBeenLastCalledWith(
      expect.objectContaining({ sort_by: 'last_visit_date', sort: 'asc', page: 1 }),
    );
  });

  it('reads an order chosen on a desk that it does not offer as no choice, not as a wrong one', async () => {
    setViewportWidth(375);
    renderPage({ ...emptySearchState, sort_by: 'address', sort: 'desc' });
    await screen.findAllByTestId('institution-card');
    expect(screen.getByTestId('phone-sort')).toHaveValue('');
  });
});

describe('partner search on a desk', () => {
  it('greys out the previous rows while a new order loads, and not once it has come', async () => {
    let answer: (page: unknown) => void = () => undefined;
    const first = { data: [row(1), row(2)], meta: { total_count: 2, page: 1, per_page: 20, total_pages: 1 } };
    const search = vi
      .fn()
      .mockResolvedValueOnce(first)
      .mockImplementationOnce(() => new Promise((resolve) => (answer = resolve)));
    const api = new Proxy({ searchMedicalInstitutions: search } as Record<string, unknown>, {
      get: (target, key: string) => target[key] ?? vi.fn(async () => []),
    });
    function Stateful() {
      const [state, setState] = useState<InstitutionSearchState>(emptySearchState);
      return <MedicalInstitutionsSearchPage state={state} onStateChange={setState} />;
    }
    renderInRouter(() => <Stateful />, { api, paths: ['/crms/$id'] });
    const scroller = await screen.findByTestId('institution-table-scroller');
    expect(scroller).toHaveAttribute('aria-busy', 'false');
    await userEvent.click(screen.getByTestId('sort-last_visit_date'));
    await waitFor(() => expect(search).toHaveBeenCalledTimes(2));
    // The rows on screen are still the old order's: they say so until the new page arrives.
    expect(screen.getByTestId('institution-table-scroller')).toHaveAttribute('aria-busy', 'true');
    answer({ ...first, data: [row(2), row(1)] });
    await waitFor(() => expect(screen.getByTestId('institution-table-scroller')).toHaveAttribute('aria-busy', 'false'));
  });
});
