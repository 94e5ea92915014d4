import { MantineProvider } from '@mantine/core';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { NearbyInstitution, RecentCommunicationInstitution } from '@renkei/contracts';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ServicesProvider, type AppServices } from '../../../app/services-context.tsx';
import { testServices } from '../../../test/render-app.tsx';
import { InstitutionPicker } from './InstitutionPicker.tsx';

const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

const recentOf = (n: number): RecentCommunicationInstitution => ({
  id: id(n),
  name: `最近クリニック${n}`,
  address: `静岡市葵区${n}丁目`,
  last_acted_date: `2026-03-${String(20 - n).padStart(2, '0')}`,
});

const nearby: NearbyInstitution[] = [
  { id: id(31), name: '駅前内科', address: '静岡市葵区黒金町1', distance_m: 346, last_visit_date: '2026-03-03' },
  { id: id(32), name: '駿河整形外科', address: '静岡市駿河区南町2', distance_m: 1234, last_visit_date: null },
];

type Callbacks = { success: PositionCallback; failure: PositionErrorCallback };
let geolocation: { getCurrentPosition: ReturnType<typeof vi.fn> };
const lastRequest = (): Callbacks => {
  const call = geolocation.getCurrentPosition.mock.calls.at(-1)!;
  return { success: call[0] as PositionCallback, failure: call[1] as PositionErrorCallback };
};
const fix = (latitude: number, longitude: number) =>
  ({ coords: { latitude, longitude, accuracy: 10 }, timestamp: Date.now() }) as unknown as GeolocationPosition;

beforeEach(() => {
  geolocation = { getCurrentPosition: vi.fn() };
  Object.defineProperty(navigator, 'geolocation', { value: geolocation, configurable: true });
});

afterEach(() => {
  Reflect.deleteProperty(navigator, 'geolocation');
});

function renderPicker({
  recent = [1, 2, 3, 4, 5, 6, 7].map(recentOf),
  near = nearby,
  error,
}: { recent?: RecentCommunicationInstitution[]; near?: NearbyInstitution[]; error?: string } = {}) {
  const api = {
    searchMedicalInstitutions: vi.fn(async () => ({
      data: [{ id: id(41), name: '葵医療センター' }],
      meta: { total_count: 1, page: 1, per_page: 20, total_pages: 1 },
    })),
    listRecentCommunicationInstitutions: vi.fn(async () => ({ data: recent })),
    listNearbyMedicalInstitutions: vi.fn(async () => ({ data: near })),
  };
  const onPick = vi.fn();
  const services: AppServices = { ...testServices(), api: api as unknown as AppServices['api'] };
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  render(
    <MantineProvider>
      <QueryClientProvider client={client}>
        <ServicesProvider value={services}>
          <InstitutionPicker onPick={onPick} error={error} />
        </ServicesProvider>
      </QueryClientProvider>
    </MantineProvider>,
  );
  return { api, onPick };
}

describe('institution picker', () => {
  it('offers the six most recent institutions as buttons, without asking for the position', async () => {
    const { onPick } = renderPicker();
    const recent = screen.getByTestId('recent-institutions');
    expect(await within(recent).findByRole('button', { name: /最近クリニック1/ })).toHaveTextContent(
      '最終記録 2026/03/19',
    );
    expect(within(recent).getAllByRole('button')).toHaveLength(6);
    expect(within(recent).queryByRole('button', { name: /最近クリニック7/ })).toBeNull();
    await userEvent.click(within(recent).getByRole('button', { name: /最近クリニック3/ }));
    expect(onPick).toHaveBeenCalledWith({ id: id(3), name: '最近クリニック3' });
    expect(geolocation.getCurrentPosition).not.toHaveBeenCalled();
  });

  it('says to search by name when there is no record yet', async () => {
    renderPicker({ recent: [] });
    expect(
      await screen.findByText('まだ活動の記録がありません。上の欄に医療機関の名称を入力して探してください'),
    ).toBeInTheDocument();
  });

  it('finds institutions near the phone when asked, with distance and last visit, pickable by keyboard', async () => {
    const { api, onPick } = renderPicker();
    const section = screen.getByTestId('nearby-institutions');
    const button = within(section).getByRole('button', { name: '現在地の近くを探す' });
    button.focus();
    await userEvent.keyboard('{Enter}');
    expect(geolocation.getCurrentPosition).toHaveBeenCalledTimes(1);
    expect(within(section).getByText('現在地を確認しています…')).toBeInTheDocument();
    act(() => lastRequest().success(fix(34.971234567, 138.389876543)));
    const first = await within(section).findByRole('button', { name: /駅前内科/ });
    expect(first).toHaveTextContent('350 m ・ 最終訪問 2026/03/03');
    expect(within(section).getByRole('button', { name: /駿河整形外科/ })).toHaveTextContent('1.2 km ・ 訪問記録なし');
    // A few metres of GPS jitter ask the same question.
    expect(api.listNearbyMedicalInstitutions).toHaveBeenCalledWith(
      expect.objectContaining({ query: { latitude: 34.9712, longitude: 138.3899 } }),
    );
    await userEvent.tab();
    expect(first).toHaveFocus();
    await userEvent.keyboard('{Enter}');
    expect(onPick).toHaveBeenCalledWith({ id: id(31), name: '駅前内科' });
  });

  it('explains a refused permission, and a position with nothing around it', async () => {
    renderPicker({ near: [] });
    const section = screen.getByTestId('nearby-institutions');
    await userEvent.click(within(section).getByRole('button', { name: '現在地の近くを探す' }));
    act(() => lastRequest().failure({ code: 1, message: 'denied' } as GeolocationPositionError));
    expect(
      await within(section).findByText('位置情報が使えません。端末の設定で許可するか、名称で検索してください'),
    ).toBeInTheDocument();

    await userEvent.click(within(section).getByRole('button', { name: '現在地の近くを探す' }));
    act(() => lastRequest().success(fix(35, 138.4)));
    expect(
      await within(section).findByText('現在地から3 km以内に医療機関が見つかりません。名称で検索してください'),
    ).toBeInTheDocument();
    expect(screen.queryByText(/位置情報が使えません/)).toBeNull();
  });

  it('does not ask the API about a position outside Japan', async () => {
    const { api } = renderPicker();
    await userEvent.click(screen.getByRole('button', { name: '現在地の近くを探す' }));
    act(() => lastRequest().success(fix(48.85, 2.35)));
    expect(await screen.findByText(/現在地が国内ではないため/)).toBeInTheDocument();
    expect(api.listNearbyMedicalInstitutions).not.toHaveBeenCalled();
  });

  it('keeps the typed search, and shows the form’s error on it', async () => {
    const { api, onPick } = renderPicker({ error: '医療機関を選んでください' });
    expect(screen.getByText('医療機関を選んでください')).toBeInTheDocument();
    await userEvent.type(screen.getByPlaceholderText('名称・カナ・住所で検索'), 'あおい');
    await userEvent.click(await screen.findByRole('option', { name: '葵医療センター', hidden: true }));
    expect(onPick).toHaveBeenCalledWith({ id: id(41), name: '葵医療センター' });
    await waitFor(() =>
      expect(api.searchMedicalInstitutions).toHaveBeenCalledWith(
        expect.objectContaining({ body: { keyword: 'あおい', per_page: 20 } }),
      ),
    );
  });
});
