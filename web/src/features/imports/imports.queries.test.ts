import type { ImportRecord } from '@renkei/contracts';
import { describe, expect, it } from 'vitest';
import type { ApiClient } from '../../api/api-client.ts';
import { errorLine } from './components/ImportRecordList.tsx';
import { importQueries, pollIntervalMs, progressOf } from './imports.queries.ts';

const record = (over: Partial<ImportRecord>): ImportRecord => ({
  id: '00000000-0000-4000-8000-000000000001',
  filename: 'labels.csv',
  status: 'processing',
  error_messages: [],
  imported_row_count: 0,
  failed_row_count: 0,
  unprocessed_row_count: 0,
  abortion_row_number: null,
  created_at: '2026-04-01T00:00:00Z',
  created_by: null,
  import_type: 'medical_institution_label_value',
  ...over,
});

function intervalFor(rows: ImportRecord[], awaitedId: string | null) {
  const options = importQueries.labelValueImports({} as ApiClient, 1, awaitedId);
  const refetch = options.refetchInterval as (q: unknown) => number | false;
  return refetch({
    state: { data: { data: rows, meta: { total_count: rows.length, page: 1, per_page: 20, total_pages: 1 } } },
  });
}

describe('label value imports', () => {
  it('counts imported and failed rows as done', () => {
    expect(progressOf(record({ imported_row_count: 30, failed_row_count: 10, unprocessed_row_count: 60 }))).toBe(40);
    expect(progressOf(record({ status: 'waiting' }))).toBe(0);
    expect(progressOf(record({ status: 'failed', unprocessed_row_count: 5 }))).toBe(100);
  });

  it('polls while an import runs or a just-uploaded one is not listed yet, and stops otherwise', () => {
    expect(intervalFor([record({ status: 'processing' })], null)).toBe(pollIntervalMs);
    expect(intervalFor([record({ status: 'completed' })], null)).toBe(false);
    expect(intervalFor([], '00000000-0000-4000-8000-000000000009')).toBe(pollIntervalMs);
    expect(intervalFor([record({ status: 'completed' })], '00000000-0000-4000-8000-000000000001')).toBe(false);
  });
});

describe('import error lines', () => {
  it('leads with the row number once', () => {
    expect(errorLine({ row_number: 2, message: '2行目: 医療機関コードが不正です' })).toBe(
      '2行目: 医療機関コードが不正です',
    );
    expect(errorLine({ row_number: 3, message: '値が不正です' })).toBe('3行目: 値が不正です');
    expect(errorLine({ row_number: null, message: '見出しがありません' })).toBe('ファイル: 見出しがありません');
  });
});
