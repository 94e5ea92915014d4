import { MantineProvider } from '@mantine/core';
import { QueryClient, QueryClientProvider, type QueryKey } from '@tanstack/react-query';
import { createMemoryHistory, createRootRoute, createRouter, RouterProvider } from '@tanstack/react-router';
import { act, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { DataUploadRecord, ImportStatus } from '@renkei/contracts';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ApiClient } from '../../../api/api-client.ts';
import { ServicesProvider, type AppServices } from '../../../app/services-context.tsx';
import { testServices } from '../../../test/render-app.tsx';
import { stubXhr } from '../../../test/fake-xhr.ts';
import { withDefaults } from '../../data-analysis/analysis-periods.ts';
import { dataAnalysisQueries } from '../../data-analysis/data-analysis.queries.ts';
import { defaultVisitOptions, visitChartQueries } from '../../data-analysis/visit-charts.queries.ts';
import { dataUploadQueries } from '../data-uploads.queries.ts';
import { DataUploadsPage } from './DataUploadsPage.tsx';

const f = withDefaults({}, '2026-11-29');
const none = {} as ApiClient;

/** The figures an upload might make stale, each cached as the analysis page left it. */
const keys = {
  trend: dataAnalysisQueries.referralsTrend(none, f).queryKey,
  ranking: dataAnalysisQueries.ranking(none, f, { from: f.from, to: f.to }).queryKey,
  effectiveness: dataAnalysisQueries.effectiveness(none, f).queryKey,
  visits: visitChartQueries.visits(none, f, defaultVisitOptions).queryKey,
  tags: dataAnalysisQueries.tags(none).queryKey,
  // An institution's referrals, as its page left them.
  referrals: ['referrals', 'list', '00000000-0000-4000-8000-000000000099', 1],
} satisfies Record<string, QueryKey>;

const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const upload = (n: number, status: ImportStatus): DataUploadRecord => ({
  id: id(n),
  filename: `upload-${n}.csv`,
  status,
  error_messages: [],
  imported_row_count: 0,
  failed_row_count: 0,
  unprocessed_row_count: 0,
  abortion_row_number: null,
  // Later numbers are newer uploads, as the history lists them (newest first).
  created_at: `2026-11-29T10:${String(n).padStart(2, '0')}:00.000Z`,
  created_by: null,
  import_type: 'referral',
  total_row_count: 0,
  new_record_count: 0,
  updated_record_count: 0,
  unchanged_record_count: 0,
  unmatched_row_count: 0,
  unmatched_institutions: [],
  withdrawing: false,
});

/** The page over a history of two pages whose answers the test sets (`pages`). */
function renderPage(pages: Record<number, DataUploadRecord[]>, ownHospital: string | null = 'own-hospital') {
  const api = {
    listDataUploads: vi.fn(async ({ query }: { query: { page: number } }) => ({
      data: pages[query.page] ?? [],
      meta: { total_count: 40, page: query.page, per_page: 20, total_pages: 2 },
    })),
    listMappingProfiles: vi.fn(async () => ({ profiles: [] })),
    listUnmatchedInstitutions: vi.fn(async () => ({
      data: [],
      meta: { total_count: 0, page: 1, per_page: 20, total_pages: 0 },
    })),
    listOwnDepartments: vi.fn(async () => []),
    segmentationSetting: vi.fn(async () => ({
      id: null,
      rest_segment_label: 'その他',
      excluded_own_department_ids: [],
      segments: [],
      updated_at: null,
      version: null,
    })),
    referralAdmissionPeriod: vi.fn(async () => ({ max_referral_hospital_admission_period: 90, updated_at: null })),
    getCurrentUser: vi.fn(async () => ({ tenant: { medical_institution_id: ownHospital } })),
    transport: { lastPosition: () => null },
  };
  const services: AppServices = { ...testServices(), api: api as unknown as AppServices['api'] };
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  const seed = () => {
    for (const key of Object.values<QueryKey>(keys)) client.setQueryData(key, { cached: true });
  };
  seed();
  // In a router: the referral settings on the page guard their unsaved changes against navigation.
  const router = createRouter({
    routeTree: createRootRoute({ component: DataUploadsPage }),
    history: createMemoryHistory({ initialEntries: ['/'] }),
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
  const poll = () => act(() => client.refetchQueries({ queryKey: dataUploadQueries.lists(), type: 'active' }));
  const invalidated = () =>
    Object.entries(keys)
      .filter(([, key]) => client.getQueryState(key)?.isInvalidated)
      .map(([name]) => name)
      .sort();
  return { api, client, poll, invalidated, seed };
}

const shown = (n: number) => screen.findByText(`upload-${n}.csv`);

afterEach(() => vi.unstubAllGlobals());

describe('data uploads page', () => {
  it('reads the unmatched institutions, the referrals and every referral figure again when an upload ends, once', async () => {
    const pages = { 1: [upload(5, 'processing'), upload(1, 'completed')] };
    const { api, poll, invalidated, seed } = renderPage(pages);
    await shown(5);
    await waitFor(() => expect(api.listUnmatchedInstitutions).toHaveBeenCalledTimes(1));
    await poll();
    expect(invalidated()).toEqual([]);
    pages[1] = [upload(5, 'completed'), upload(1, 'completed')];
    await poll();
    await waitFor(() => expect(invalidated()).toEqual(['effectiveness', 'ranking', 'referrals', 'trend']));
    await waitFor(() => expect(api.listUnmatchedInstitutions).toHaveBeenCalledTimes(2));
    seed();
    await poll();
    await poll();
    expect(invalidated()).toEqual([]);
    expect(api.listUnmatchedInstitutions).toHaveBeenCalledTimes(2);
  });

  it('reads the figures, the referrals and the unmatched institutions again when a withdrawal is done, once', async () => {
    const withdrawing = (n: number): DataUploadRecord => ({ ...upload(n, 'completed'), withdrawing: true });
    const pages = { 1: [withdrawing(5), upload(1, 'completed')] };
    const { api, poll, invalidated, seed } = renderPage(pages);
    await shown(5);
    await waitFor(() => expect(api.listUnmatchedInstitutions).toHaveBeenCalledTimes(1));
    // Still under way: its rows still count.
    await poll();
    expect(invalidated()).toEqual([]);
    expect(screen.getByText('取り消し中')).toBeInTheDocument();
    // Done: the record has left the history.
    pages[1] = [upload(1, 'completed')];
    await poll();
    await waitFor(() => expect(invalidated()).toEqual(['effectiveness', 'ranking', 'referrals', 'trend']));
    await waitFor(() => expect(api.listUnmatchedInstitutions).toHaveBeenCalledTimes(2));
    expect(screen.queryByText('upload-5.csv')).toBeNull();
    seed();
    await poll();
    expect(invalidated()).toEqual([]);
    expect(api.listUnmatchedInstitutions).toHaveBeenCalledTimes(2);
  });

  it('takes neither a record left on another page nor one never seen being withdrawn for a withdrawal done', async () => {
    const pages = {
      1: [{ ...upload(30, 'completed'), withdrawing: true }, upload(20, 'completed')],
      2: [upload(10, 'completed')],
    };
    const { poll, invalidated } = renderPage(pages);
    await shown(30);
    await userEvent.click(screen.getByRole('button', { name: '2' }));
    await shown(10);
    await poll();
    expect(invalidated()).toEqual([]);
    // Back on page 1, where the record is still being withdrawn; then another owner's record goes at once.
    await userEvent.click(screen.getByRole('button', { name: '1' }));
    await shown(30);
    pages[1] = [{ ...upload(30, 'completed'), withdrawing: true }];
    await poll();
    expect(invalidated()).toEqual([]);
    // The one seen being withdrawn is done.
    pages[1] = [];
    await poll();
    await waitFor(() => expect(invalidated()).toEqual(['effectiveness', 'ranking', 'referrals', 'trend']));
  });

  it('has the figures asked again when the analysis page is next entered, within the minute they stay fresh', async () => {
    const pages = { 1: [upload(5, 'processing')] };
    const { client, poll, invalidated } = renderPage(pages);
    await shown(5);
    const referralsComparison = vi.fn(async () => ({ labels: [], series: [] }));
    // What the route's loader does on entering the page (`prefetchDataAnalysis`).
    const enter = () =>
      client.prefetchQuery(dataAnalysisQueries.referralsTrend({ referralsComparison } as unknown as ApiClient, f));
    await enter();
    expect(referralsComparison).not.toHaveBeenCalled();
    pages[1] = [upload(5, 'completed')];
    await poll();
    await waitFor(() => expect(invalidated()).toContain('trend'));
    await enter();
    expect(referralsComparison).toHaveBeenCalledTimes(1);
  });

  it('reads nothing again when the user turns to an older page while an upload runs', async () => {
    const pages = { 1: [upload(30, 'processing'), upload(20, 'completed')], 2: [upload(10, 'completed')] };
    const { api, invalidated } = renderPage(pages);
    await shown(30);
    await userEvent.click(screen.getByRole('button', { name: '2' }));
    await shown(10);
    expect(api.listUnmatchedInstitutions).toHaveBeenCalledTimes(1);
    expect(invalidated()).toEqual([]);
  });

  it('counts an upload already over when the history first shows it (a small file)', async () => {
    const pages = { 1: [upload(1, 'completed')] };
    const { api, invalidated } = renderPage(pages);
    await shown(1);
    await waitFor(() => expect(api.listUnmatchedInstitutions).toHaveBeenCalledTimes(1));
    stubXhr({ status: 202, body: { ...upload(9, 'waiting'), import_type: 'd_file' } });
    // Done before the history is read again: it never shows it running.
    pages[1] = [{ ...upload(9, 'completed'), import_type: 'd_file' }, upload(1, 'completed')];
    const card = screen.getByTestId('upload-card-d_file');
    await userEvent.upload(card.querySelector<HTMLInputElement>('input[type=file]')!, new File(['x'], 'd.txt'));
    await userEvent.click(within(card).getByRole('button', { name: 'アップロード' }));
    await shown(9);
    await waitFor(() => expect(invalidated()).toEqual(['effectiveness', 'ranking', 'referrals', 'trend']));
    // Once on the upload (it reads everything of the page again), once when it is seen over.
    await waitFor(() => expect(api.listUnmatchedInstitutions).toHaveBeenCalledTimes(3));
  });

  it('shows the bar of the transfer with the share sent, then the import in the history; the limit on each card', async () => {
    const pages = { 1: [upload(1, 'completed')] };
    renderPage(pages);
    await shown(1);
    expect(screen.getByTestId('upload-limit-referral')).toHaveTextContent('1ファイル 99 MB まで');
    expect(screen.getByTestId('upload-limit-hospital_admission_ef_file')).toHaveTextContent('1ファイル 2 GB まで');
    const sent = stubXhr();
    // Each card is a region named by its title, so its 「アップロード」 button is heard in its card.
    const card = screen.getByRole('region', { name: '様式1（FF1）' });
    expect(card).toBe(screen.getByTestId('upload-card-ff1_file'));
    expect(screen.getAllByRole('region').map((r) => r.getAttribute('aria-labelledby'))).toEqual(
      expect.arrayContaining(['upload-card-title-referral', 'upload-card-title-outpatient_ef_file']),
    );
    const file = new File(['x'.repeat(2 * 1024 * 1024)], 'ff1.txt');
    await userEvent.upload(card.querySelector<HTMLInputElement>('input[type=file]')!, file);
    await userEvent.click(within(card).getByRole('button', { name: 'アップロード' }));
    await waitFor(() => expect(sent).toHaveLength(1));
    expect(sent[0]!.body!.get('import_type')).toBe('ff1_file');
    act(() => sent[0]!.progress(1024 * 1024, 2 * 1024 * 1024));
    const bar = await within(card).findByTestId('upload-progress-ff1_file');
    expect(within(bar).getByRole('progressbar')).toHaveAttribute('aria-valuenow', '50');
    expect(bar).toHaveTextContent('アップロード中 1.0 / 2.0 MB');
    expect(bar).toHaveTextContent('50.0%');
    pages[1] = [{ ...upload(9, 'waiting'), import_type: 'ff1_file' }, upload(1, 'completed')];
    act(() => sent[0]!.respond(202, { ...upload(9, 'waiting'), import_type: 'ff1_file' }));
    await shown(9);
    expect(within(card).queryByTestId('upload-progress-ff1_file')).toBeNull();
  });

  it('says when the own hospital is not set, and not otherwise', async () => {
    renderPage({ 1: [] }, null);
    expect(await screen.findByTestId('no-own-hospital')).toHaveTextContent('7桁の医療機関コード');
  });

  it('says nothing of the own hospital when it is set', async () => {
    const { api } = renderPage({ 1: [] });
    await waitFor(() => expect(api.getCurrentUser).toHaveBeenCalled());
    await screen.findByTestId('upload-card-referral');
    // The answer has been rendered by then: the page would have said so already.
    await new Promise((r) => setTimeout(r, 50));
    expect(screen.queryByTestId('no-own-hospital')).toBeNull();
  });

  it("says a file over its type's limit on its card, from the server too", async () => {
    renderPage({ 1: [] });
    const card = await screen.findByTestId('upload-card-d_file');
    const sent = stubXhr();
    await userEvent.upload(card.querySelector<HTMLInputElement>('input[type=file]')!, new File(['x'], 'd.txt'));
    await userEvent.click(within(card).getByRole('button', { name: 'アップロード' }));
    await waitFor(() => expect(sent).toHaveLength(1));
    act(() => sent[0]!.respond(413, { status: 413, message: 'ファイルが大きすぎます（上限 2 GB）。' }));
    expect(await within(card).findByText('ファイルが大きすぎます（上限 2 GB）。')).toBeInTheDocument();
  });
});
