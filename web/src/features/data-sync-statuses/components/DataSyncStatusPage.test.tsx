import { MantineProvider } from '@mantine/core';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render, screen, within } from '@testing-library/react';
import type { DataSyncStatuses } from '@renkei/contracts';
import { describe, expect, it, vi } from 'vitest';
import { ServicesProvider, type AppServices } from '../../../app/services-context.tsx';
import { testServices } from '../../../test/render-app.tsx';
import { DataSyncStatusPage } from './DataSyncStatusPage.tsx';

const types = [
  'referral',
  'reverse_referral',
  'ff1_file',
  'd_file',
  'outpatient_ef_file',
  'hospital_admission_ef_file',
  'label_values',
  'communication',
  'communication_update',
] as const;

function statuses(patch: Partial<DataSyncStatuses> = {}): DataSyncStatuses {
  return {
    imports: types.map((import_type) => ({ import_type, last: null, last_completed_at: null })),
    institution_master: null,
    projections: [],
    checked_at: '2026-11-24T01:00:00.000Z',
    ...patch,
  };
}

function renderPage(answer: DataSyncStatuses, canUpload = true) {
  const api = { dataSyncStatuses: vi.fn(async () => answer) };
  const services: AppServices = { ...testServices(), api: api as unknown as AppServices['api'] };
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  render(
    <MantineProvider>
      <ServicesProvider value={services}>
        <QueryClientProvider client={client}>
          <DataSyncStatusPage canUpload={canUpload} />
        </QueryClientProvider>
      </ServicesProvider>
    </MantineProvider>,
  );
}

describe('data sync status page', () => {
  it('shows the last import of each type, the master sync and each read model with its state', async () => {
    const answer = statuses({
      institution_master: {
        status: 'completed',
        started_at: '2026-11-01T00:00:00.000Z',
        finished_at: '2026-11-01T00:05:00.000Z',
        total_rows: 180_000,
        inserted_count: 12,
        updated_count: 340,
        closed_count: 5,
        failed_count: 0,
      },
      projections: [
        {
          name: 'referrals',
          status: 'delayed',
          lag_events: 1200,
          lag_seconds: 8.5,
          events_per_second: 900,
          updated_at: '2026-11-24T00:59:58.000Z',
        },
        {
          name: 'tags',
          status: 'ok',
          lag_events: 0,
          lag_seconds: 0,
          events_per_second: 0,
          updated_at: '2026-11-24T00:50:00.000Z',
        },
      ],
    });
    answer.imports[0] = {
      import_type: 'referral',
      last: {
        id: '6f1c1f7e-8d8e-4a5f-9a57-5d3c9d1f4f10',
        filename: '紹介2026-10.csv',
        status: 'failed',
        created_at: '2026-11-20T03:00:00.000Z',
        imported_row_count: 1234,
        failed_row_count: 2,
      },
      last_completed_at: '2026-10-20T03:00:00.000Z',
    };
    answer.imports[8] = {
      import_type: 'communication_update',
      last: {
        id: '6f1c1f7e-8d8e-4a5f-9a57-5d3c9d1f4f11',
        filename: '活動記録の検索結果.csv',
        status: 'completed',
        created_at: '2026-11-21T03:00:00.000Z',
        imported_row_count: 57,
        failed_row_count: 0,
      },
      last_completed_at: '2026-11-21T03:00:00.000Z',
    };
    // Every row of another hospital's FF1 refused: the run completed, but nothing of it counts.
    answer.imports[2] = {
      import_type: 'ff1_file',
      last: {
        id: '6f1c1f7e-8d8e-4a5f-9a57-5d3c9d1f4f12',
        filename: 'FF1_999999999.txt',
        status: 'completed',
        created_at: '2026-11-22T03:00:00.000Z',
        imported_row_count: 0,
        failed_row_count: 6,
      },
      last_completed_at: '2026-11-22T03:00:00.000Z',
    };
    renderPage(answer);
    const ff1 = (await screen.findByTestId('import-statuses')).querySelector<HTMLElement>(
      '[data-import-type="ff1_file"]',
    )!;
    expect(within(ff1).getByTestId('upload-nothing-imported')).toHaveTextContent('取り込み0行');
    expect(within(ff1).queryByText('完了')).toBeNull();
    const updates = (await screen.findByTestId('import-statuses')).querySelector(
      '[data-import-type="communication_update"]',
    );
    expect(updates).toHaveTextContent('コミュニケーション取り込み（更新）');
    expect(updates).toHaveTextContent('活動記録の検索結果.csv');
    const referral = (await screen.findByTestId('import-statuses')).querySelector('[data-import-type="referral"]');
    expect(referral).toHaveTextContent('紹介2026-10.csv');
    expect(referral).toHaveTextContent('失敗');
    expect(referral).toHaveTextContent('1,234');
    expect(referral).toHaveTextContent('2026/10/20');
    expect(screen.getByTestId('master-sync')).toHaveTextContent('180,000件（新規 12・更新 340・廃止 5・エラー 0）');
    const rows = within(screen.getByTestId('projection-statuses'));
    expect(rows.getByText('紹介・逆紹介・入院データ').closest('tr')).toHaveTextContent('反映待ち1,2008.5 秒');
    expect(rows.getByText('タグ').closest('tr')).toHaveTextContent('最新');
    expect(screen.queryByTestId('no-imports')).not.toBeInTheDocument();
  });

  it('tells a member with no imports yet that an owner uploads the data', async () => {
    renderPage(statuses(), false);
    expect(await screen.findByTestId('no-imports')).toHaveTextContent('データの取り込みは管理者が行います。');
    expect(
      screen.getByText('医療機関マスタはまだ取り込まれていません（運用担当者が取り込みます）。'),
    ).toBeInTheDocument();
  });
});
