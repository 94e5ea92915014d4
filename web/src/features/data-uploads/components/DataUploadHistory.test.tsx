import { MantineProvider } from '@mantine/core';
import type { DataUploadRecord } from '@renkei/contracts';
import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
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
};

describe('DataUploadHistory', () => {
  it('shows in a record’s details the department names that are none of the own departments, with their rows', async () => {
    render(
      <MantineProvider>
        <DataUploadHistory records={[record]} />
      </MantineProvider>,
    );
    await userEvent.click(screen.getByRole('button', { name: '詳細' }));
    expect(screen.getByTestId('unknown-departments')).toHaveTextContent(
      '自院診療科に該当しない名称（125行。行は診療科未設定として取り込み済み）: 整形外科 (120行)、形成外科 (5行)',
    );
  });

  it('offers no details for a record without any', () => {
    render(
      <MantineProvider>
        <DataUploadHistory records={[{ ...record, unknown_department_row_count: 0, unknown_departments: [] }]} />
      </MantineProvider>,
    );
    expect(screen.queryByRole('button', { name: '詳細' })).toBeNull();
  });
});
