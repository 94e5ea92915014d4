import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import type { SegmentMapInstitution, SegmentMapResult } from '@renkei/contracts';
import { renderInRouter } from '../../../test/render-in-router.tsx';
import { SegmentMapPage } from './SegmentMapPage.tsx';

const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const row = (n: number, segment: number | null, patch: Partial<SegmentMapInstitution> = {}): SegmentMapInstitution => ({
  id: id(n),
  name: `医療機関${n}`,
  address: `静岡県静岡市${n}`,
  latitude: 34.9,
  longitude: 138.4,
  referral_count: 100 - n,
  referral_admission_rate: 40,
  segment_id: segment === null ? null : id(80 + segment),
  segment_label: segment === null ? 'その他' : `セグメント${segment}`,
  ...patch,
});

const result: SegmentMapResult = {
  segments: [
    { segment_id: id(81), label: 'A 重点連携先', priority: 1, institution_count: 1, referral_count: 99 },
    { segment_id: id(82), label: 'B 主要連携先', priority: 2, institution_count: 0, referral_count: 0 },
    { segment_id: null, label: 'その他', priority: null, institution_count: 2, referral_count: 195 },
  ],
  data: [row(1, 1), row(2, null, { referral_admission_rate: null }), row(3, null)],
  without_location_count: 4,
};

function renderPage(state = {}) {
  const api = {
    segmentMap: vi.fn(async (_request: { body: Record<string, unknown> }) => result),
    listOwnDepartments: vi.fn(async () => [{ id: id(70), name: '外科' }]),
    getCurrentUser: vi.fn(async () => ({ tenant: { latitude: 34.96, longitude: 138.4 } })),
  };
  const onStateChange = vi.fn();
  const view = renderInRouter(() => <SegmentMapPage state={state} onStateChange={onStateChange} webgl={false} />, {
    api,
    paths: ['/crms/$id'],
  });
  return { ...view, api, onStateChange };
}

describe('segment map page', () => {
  it('shows each segment in the legend with its institutions and referrals', async () => {
    renderPage();
    const legend = await screen.findByRole('list', { name: 'セグメント凡例' });
    const lines = within(legend).getAllByRole('listitem');
    expect(lines.map((l) => l.textContent)).toEqual([
      'A 重点連携先1施設・紹介 99件',
      'B 主要連携先0施設・紹介 0件',
      'その他2施設・紹介 195件',
    ]);
    expect(screen.getByTestId('segment-map-without-location')).toHaveTextContent('位置情報のない4件');
  });

  it('lists the institutions under their segment, empty segments left out', async () => {
    renderPage();
    const key = await screen.findByRole('region', { name: 'A 重点連携先' });
    expect(within(key).getByText('医療機関1')).toBeInTheDocument();
    expect(within(key).getByText('入院率 40%')).toBeInTheDocument();
    const rest = screen.getByRole('region', { name: 'その他' });
    expect(within(rest).getByText('医療機関2')).toBeInTheDocument();
    expect(within(rest).getByText('入院率 —')).toBeInTheDocument();
    expect(within(rest).getByText('医療機関3')).toBeInTheDocument();
    expect(screen.queryByRole('region', { name: 'B 主要連携先' })).not.toBeInTheDocument();
    expect(screen.getByTestId('segment-map-count')).toHaveTextContent('紹介元 3件');
  });

  it('asks for the last whole 年度 by default, and the period and departments it was given', async () => {
    const { api } = renderPage();
    await screen.findByText('医療機関1');
    const body = api.segmentMap.mock.calls[0]![0].body as { period: { from: string; to: string } };
    expect(body.period.from).toMatch(/^\d{4}-04-01$/);
    expect(body.period.to).toMatch(/^\d{4}-03-31$/);

    const other = renderPage({ from: '2025-01-01', to: '2025-06-30', own_department_ids: [id(70)] });
    await waitFor(() =>
      expect(other.api.segmentMap).toHaveBeenCalledWith(
        expect.objectContaining({
          body: { period: { from: '2025-01-01', to: '2025-06-30' }, own_department_ids: [id(70)] },
        }),
      ),
    );
  });

  it('exports the list as CSV in its order, UTF-8 with a BOM', async () => {
    let saved: Blob | undefined;
    vi.spyOn(URL, 'createObjectURL').mockImplementation((blob) => {
      saved = blob as Blob;
      return 'blob:test';
    });
    vi.spyOn(URL, 'revokeObjectURL').mockImplementation(() => {});
    const click = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(() => {});
    renderPage({ from: '2025-04-01', to: '2026-03-31' });
    await screen.findByText('医療機関1');
    await userEvent.click(screen.getByTestId('segment-map-export'));
    await userEvent.click(await screen.findByRole('menuitem', { name: 'UTF-8（BOM付き）' }));
    await waitFor(() => expect(saved).toBeDefined());
    expect((click.mock.contexts[0] as HTMLAnchorElement).download).toBe('診療圏分析_2025-04-01_2026-03-31.csv');
    // jsdom's Blob has no arrayBuffer(); FileReader reads it as a browser would.
    const bytes = new Uint8Array(
      await new Promise<ArrayBuffer>((resolve) => {
        const reader = new FileReader();
        reader.onload = () => resolve(reader.result as ArrayBuffer);
        reader.readAsArrayBuffer(saved!);
      }),
    );
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(new TextDecoder().decode(bytes.subarray(3)).split('\r\n')).toEqual([
      'セグメント,医療機関名,住所,紹介数,入院率(%),緯度,経度',
      'A 重点連携先,医療機関1,静岡県静岡市1,99,40,34.9,138.4',
      'その他,医療機関2,静岡県静岡市2,98,,34.9,138.4',
      'その他,医療機関3,静岡県静岡市3,97,40,34.9,138.4',
      '',
    ]);
    vi.restoreAllMocks();
  });

  it('keeps the map view when the filters are applied', async () => {
    const { onStateChange } = renderPage({ lat: 35, lng: 139, zoom: 9 });
    await screen.findByText('医療機関1');
    await userEvent.click(screen.getByRole('button', { name: '絞り込む' }));
    expect(onStateChange).toHaveBeenLastCalledWith(
      expect.objectContaining({ from: expect.any(String), lat: 35, lng: 139, zoom: 9 }),
    );
    await userEvent.click(screen.getByRole('button', { name: 'クリア' }));
    expect(onStateChange).toHaveBeenLastCalledWith({ lat: 35, lng: 139, zoom: 9 });
  });

  it('opens the CRM page of a listed institution', async () => {
    const { router } = renderPage();
    const entry = (await screen.findByText('医療機関2')).closest('button')!;
    await userEvent.hover(entry);
    expect(entry).toHaveAttribute('data-highlighted');
    await userEvent.click(entry);
    await waitFor(() => expect(router.state.location.pathname).toBe(`/crms/${id(2)}`));
  });
});
