import { MantineProvider } from '@mantine/core';
import { QueryClient, QueryClientProvider, type QueryKey } from '@tanstack/react-query';
import type { DataUploadRecord, DataUploadType, ImportStatus } from '@renkei/contracts';
import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createApiClient } from '../../../api/api-client.ts';
import { ServicesProvider, type AppServices } from '../../../app/services-context.tsx';
import { toast } from '../../../app/toast.ts';
import { testServices } from '../../../test/render-app.tsx';
import { tooltipTestTheme } from '../../../test/tooltip.ts';
import { withDefaults } from '../../data-analysis/analysis-periods.ts';
import { dataAnalysisQueries } from '../../data-analysis/data-analysis.queries.ts';
import { dataSyncStatusQueries } from '../../data-sync-statuses/data-sync-statuses.queries.ts';
import { pollIntervalMs } from '../../imports/imports.queries.ts';
import { dataUploadQueries } from '../data-uploads.queries.ts';
import { DataUploadHistory } from './DataUploadHistory.tsx';

const record: DataUploadRecord = {
  id: '00000000-0000-4000-8000-000000000001',
  filename: '紹介.csv',
  status: 'completed',
  error_messages: [],
  imported_row_count: 130,
  failed_row_count: 0,
  unprocessed_row_count: 0,
  abortion_row_number: null,
  created_at: '2024-06-01T00:00:00.000Z',
  created_by: null,
  import_type: 'referral',
  total_row_count: 130,
  new_record_count: 130,
  updated_record_count: 0,
  unchanged_record_count: 0,
  unmatched_row_count: 0,
  unmatched_institutions: [],
  unknown_department_row_count: 125,
  unknown_departments: [
    { name: '整形外科', row_count: 120 },
    { name: '形成外科', row_count: 5 },
  ],
  withdrawing: false,
};

describe('DataUploadHistory', () => {
  it('shows in a record’s details the department names that are none of the own departments, with their rows', async () => {
    render(
      <MantineProvider theme={tooltipTestTheme}>
        <DataUploadHistory records={[record]} />
      </MantineProvider>,
    );
    const details = screen.getByRole('button', { name: '「紹介.csv」の詳細' });
    expect(details).toHaveAttribute('aria-expanded', 'false');
    await userEvent.click(details);
    expect(details).toHaveAttribute('aria-expanded', 'true');
    expect(screen.getByTestId('unknown-departments')).toHaveTextContent(
      '自院診療科に該当しない名称（125行。行は診療科未設定として取り込み済み）: 整形外科 (120行)、形成外科 (5行)',
    );
  });

  it('does not show a run that took no row as a green 完了: every row refused says so, with its errors', async () => {
    const refused: DataUploadRecord = {
      ...record,
      id: '00000000-0000-4000-8000-000000000002',
      filename: 'FF1_other.txt',
      import_type: 'ff1_file',
      imported_row_count: 0,
      failed_row_count: 6,
      new_record_count: 0,
      unknown_department_row_count: 0,
      unknown_departments: [],
      error_messages: [
        {
          row_number: 5,
          message: '5行目: 施設コード「999999999」は自院・グループ病院の施設コード（220310450）ではありません',
        },
      ],
    };
    render(
      <MantineProvider theme={tooltipTestTheme}>
        <DataUploadHistory records={[refused, record]} />
      </MantineProvider>,
    );
    const badge = within(screen.getByRole('row', { name: /FF1_other\.txt/ })).getByTestId('upload-nothing-imported');
    expect(badge).toHaveTextContent('取り込み0行');
    expect(badge).toHaveAccessibleName(/すべての行がエラーで、取り込まれた行はありません/);
    expect(within(screen.getByRole('row', { name: /FF1_other\.txt/ })).queryByText('完了')).toBeNull();
    // A file taken in keeps its 完了.
    const taken = screen.getByRole('row', { name: /紹介\.csv/ });
    expect(within(taken).getByText('完了')).toBeInTheDocument();
    expect(within(taken).queryByTestId('upload-nothing-imported')).toBeNull();
  });

  it('offers no details for a record without any', () => {
    render(
      <MantineProvider theme={tooltipTestTheme}>
        <DataUploadHistory records={[{ ...record, unknown_department_row_count: 0, unknown_departments: [] }]} />
      </MantineProvider>,
    );
    expect(screen.queryByRole('button', { name: /詳細/ })).toBeNull();
  });
});

const upload = (n: number, import_type: DataUploadType, status: ImportStatus): DataUploadRecord => ({
  ...record,
  id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
  filename: `${import_type}-${status}.csv`,
  import_type,
  status,
});

const f = withDefaults({}, '2026-11-29');

/**
 * The history over the real API client, whose requests `answer` (held until the test says, with `hold`),
 * and a cache holding what a withdrawal makes stale, each as another screen left it.
 */
function renderWithdrawal(records: DataUploadRecord[], answer: () => Response) {
  let release: (() => void) | null = null;
  let held: Promise<void> | null = null;
  const fetch = vi.fn(async (_url: string, _init?: RequestInit) => {
    await held;
    return answer();
  });
  const api = createApiClient({ baseUrl: '/api', getToken: async () => 'token', fetch: fetch as never });
  const keys = {
    history: dataUploadQueries.list(api, { page: 1 }).queryKey,
    unmatched: dataUploadQueries.unmatched(api, 1).queryKey,
    syncStatuses: dataSyncStatusQueries.current(api).queryKey,
    referrals: ['referrals', 'list', records[0]!.id, 1],
    trend: dataAnalysisQueries.referralsTrend(api, f).queryKey,
  } satisfies Record<string, QueryKey>;
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  for (const key of Object.values<QueryKey>(keys)) client.setQueryData(key, { cached: true });
  render(
    <MantineProvider theme={tooltipTestTheme}>
      <ServicesProvider value={{ ...testServices(), api } satisfies AppServices}>
        <QueryClientProvider client={client}>
          <DataUploadHistory records={records} />
        </QueryClientProvider>
      </ServicesProvider>
    </MantineProvider>,
  );
  return {
    fetch,
    hold: () => {
      held = new Promise((resolve) => (release = resolve));
    },
    release: () => release?.(),
    invalidated: () =>
      Object.entries(keys)
        .filter(([, key]) => client.getQueryState(key)?.isInvalidated)
        .map(([name]) => name)
        .sort(),
  };
}

const rowOf = (filename: string) => document.querySelector<HTMLElement>(`tr[data-upload-filename="${filename}"]`)!;
const openWithdrawal = async (filename: string) => {
  await userEvent.click(within(rowOf(filename)).getByRole('button', { name: `「${filename}」の取り込みを取り消す` }));
  return screen.findByRole('dialog', { name: '取り込みの取り消し' });
};
const noContent = () => new Response(null, { status: 204, headers: { 'x-position': '42' } });
const refusal = (status: number, message: string) =>
  new Response(JSON.stringify({ message }), { status, headers: { 'content-type': 'application/json' } });

afterEach(() => vi.restoreAllMocks());

describe('withdrawing an upload', { timeout: 30_000 }, () => {
  it('is offered for the lists and FF1 once their run is over, never for D and EF files', () => {
    const records = [
      upload(1, 'referral', 'completed'),
      upload(2, 'reverse_referral', 'failed'),
      upload(3, 'ff1_file', 'completed'),
      upload(4, 'referral', 'processing'),
      upload(5, 'reverse_referral', 'waiting'),
      upload(6, 'd_file', 'completed'),
      upload(7, 'outpatient_ef_file', 'completed'),
      upload(8, 'hospital_admission_ef_file', 'failed'),
    ];
    renderWithdrawal(records, noContent);
    const offered = records
      .filter((r) => within(rowOf(r.filename)).queryByRole('button', { name: /取り消す/ }) !== null)
      .map((r) => r.filename);
    expect(offered).toEqual(['referral-completed.csv', 'reverse_referral-failed.csv', 'ff1_file-completed.csv']);
  });

  it('is not offered again while an upload is being withdrawn, which says so in place of its status', async () => {
    const withdrawing = { ...upload(1, 'referral', 'completed'), filename: '取り消し中.csv', withdrawing: true };
    const kept = upload(2, 'ff1_file', 'completed');
    renderWithdrawal([withdrawing, kept], noContent);
    const row = rowOf(withdrawing.filename);
    const badge = within(row).getByTestId('upload-withdrawing');
    expect(badge).toHaveTextContent('取り消し中');
    expect(within(row).queryByText('完了')).toBeNull();
    expect(within(row).queryByRole('button', { name: /取り消す/ })).toBeNull();
    expect(row).toHaveAttribute('data-upload-withdrawing', 'true');
    // The other row keeps its status and its button.
    expect(within(rowOf(kept.filename)).getByText('完了')).toBeInTheDocument();
    expect(within(rowOf(kept.filename)).queryByTestId('upload-withdrawing')).toBeNull();
    expect(within(rowOf(kept.filename)).getByRole('button', { name: /取り消す/ })).toBeInTheDocument();
    // What it means, from the keyboard as from the mouse.
    await userEvent.tab();
    expect(badge).toHaveFocus();
    expect(await screen.findByRole('tooltip')).toHaveTextContent(
      '取り込んだ行を集計から外しています。完了すると履歴から消えます。',
    );
  });

  it('says of an upload that took no row (a failed run) that the figures do not change, only its history line goes', async () => {
    const failed = { ...upload(1, 'ff1_file', 'failed'), imported_row_count: 0, failed_row_count: 0 };
    renderWithdrawal([failed], noContent);
    const consequences = within(await openWithdrawal(failed.filename)).getByTestId('withdraw-upload-consequences');
    expect(consequences).toHaveTextContent('このファイルから取り込まれた行はないため、集計は変わりません。');
    expect(consequences).toHaveTextContent('アップロード履歴からこの取り込み（エラーの内容も）が消えます。');
    expect(consequences).not.toHaveTextContent('0行');
  });

  it('says what goes with it, sends the DELETE on confirmation with both buttons off meanwhile, then tells and refreshes', async () => {
    const success = vi.spyOn(toast, 'success').mockImplementation(() => {});
    const target = upload(1, 'referral', 'completed');
    const { fetch, hold, release, invalidated } = renderWithdrawal([target], noContent);
    const dialog = await openWithdrawal(target.filename);
    const consequences = within(dialog).getByTestId('withdraw-upload-consequences');
    expect(consequences).toHaveTextContent(
      'このファイルで取り込んだ行（130行）を、紹介・逆紹介・入院の集計から削除します。',
    );
    expect(consequences).toHaveTextContent('同じ行が他のアップロードにも含まれている場合、その行は残ります。');
    expect(consequences).toHaveTextContent('取り消しが終わると、アップロード履歴からこの取り込みが消えます。');
    expect(consequences).toHaveTextContent(
      '元に戻せません。戻すには、同じファイルをもう一度アップロードしてください。',
    );

    hold();
    await userEvent.click(within(dialog).getByRole('button', { name: '取り消す' }));
    await waitFor(() => expect(fetch).toHaveBeenCalledTimes(1));
    const [url, init] = fetch.mock.calls[0]!;
    expect(url).toBe(`/api/data_uploads/${target.id}`);
    expect(init?.method).toBe('DELETE');
    expect(within(dialog).getByRole('button', { name: 'キャンセル' })).toBeDisabled();
    expect(within(dialog).getByTestId('confirm-withdraw-upload')).toBeDisabled();
    expect(success).not.toHaveBeenCalled();

    release();
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(success).toHaveBeenCalledExactlyOnceWith(
      '「referral-completed.csv」の取り消しを受け付けました。取り消しが終わるまで（大きなファイルでは数分）、集計にはこのファイルの行が含まれます。',
    );
    expect(invalidated()).toEqual(['history', 'referrals', 'syncStatuses', 'trend', 'unmatched']);
  });

  it('shows the server’s reason when it refuses (409) and reads the history again', async () => {
    const success = vi.spyOn(toast, 'success').mockImplementation(() => {});
    const error = vi.spyOn(toast, 'error').mockImplementation(() => {});
    const reason = '取り込みの処理中は取り消せません。完了してからもう一度お試しください。';
    const target = upload(1, 'ff1_file', 'completed');
    const { invalidated } = renderWithdrawal([target], () => refusal(409, reason));
    const dialog = await openWithdrawal(target.filename);
    await userEvent.click(within(dialog).getByTestId('confirm-withdraw-upload'));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(error).toHaveBeenCalledExactlyOnceWith(reason);
    expect(success).not.toHaveBeenCalled();
    expect(invalidated()).toEqual(['history', 'syncStatuses', 'unmatched']);
  });

  it('says an upload another owner withdrew first is already withdrawn (404), not a missing page', async () => {
    const error = vi.spyOn(toast, 'error').mockImplementation(() => {});
    const target = upload(1, 'reverse_referral', 'failed');
    const { invalidated } = renderWithdrawal([target], () => refusal(404, 'ページが見つかりません'));
    const dialog = await openWithdrawal(target.filename);
    await userEvent.click(within(dialog).getByTestId('confirm-withdraw-upload'));
    await waitFor(() => expect(error).toHaveBeenCalledExactlyOnceWith('この取り込みは既に取り消されています。'));
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(invalidated()).toEqual(['history', 'syncStatuses', 'unmatched']);
  });

  it('starts on キャンセル, so the keyboard’s Enter keeps the upload', async () => {
    const target = upload(1, 'referral', 'completed');
    const { fetch } = renderWithdrawal([target], noContent);
    const dialog = await openWithdrawal(target.filename);
    await waitFor(() => expect(within(dialog).getByRole('button', { name: 'キャンセル' })).toHaveFocus());
    await userEvent.keyboard('{Enter}');
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(fetch).not.toHaveBeenCalled();
  });
});

describe('the history’s polling', () => {
  const intervalFor = (rows: DataUploadRecord[], awaitedId: string | null = null) => {
    const options = dataUploadQueries.list({} as never, { page: 1 }, awaitedId);
    const refetch = options.refetchInterval as (q: unknown) => number | false;
    return refetch({
      state: { data: { data: rows, meta: { total_count: rows.length, page: 1, per_page: 20, total_pages: 1 } } },
    });
  };

  it('goes on while an upload is being withdrawn, so its record leaves the list when that is done', () => {
    expect(
      intervalFor([{ ...upload(1, 'referral', 'completed'), withdrawing: true }, upload(2, 'ff1_file', 'failed')]),
    ).toBe(pollIntervalMs);
    expect(intervalFor([{ ...upload(1, 'reverse_referral', 'failed'), withdrawing: true }])).toBe(pollIntervalMs);
  });

  it('goes on while an upload runs or one just sent is not listed yet, and stops once all are over', () => {
    expect(intervalFor([upload(1, 'referral', 'processing'), upload(2, 'ff1_file', 'completed')])).toBe(pollIntervalMs);
    expect(intervalFor([upload(2, 'ff1_file', 'completed')], upload(9, 'referral', 'waiting').id)).toBe(pollIntervalMs);
    expect(intervalFor([upload(1, 'referral', 'completed'), upload(2, 'd_file', 'failed')])).toBe(false);
    expect(intervalFor([])).toBe(false);
  });
});
