import { describe, it } from 'vitest';
import { invalid, notFound } from '../shared/decider.ts';
import { given } from '../shared/given-when-then.ts';
import { communicationImportDecider, importRunning } from './communication-import.decider.ts';
import { fold } from '../shared/decider.ts';
import { expect } from 'vitest';

const importId = '00000000-0000-4000-8000-000000000001';
const created = ['00000000-0000-4000-8000-000000000011', '00000000-0000-4000-8000-000000000012'];
const requested = {
  type: 'CommunicationImportRequested',
  data: { import_id: importId, filename: 'a.csv', stored_path: '/x/a.csv', encoding: null, mode: 'create' },
};
const started = { type: 'CommunicationImportStarted', data: { import_id: importId, total_row_count: 3 } };
const chunk = {
  type: 'CommunicationImportChunkProcessed',
  data: {
    import_id: importId,
    chunk: 0,
    imported_row_count: 2,
    failed_row_count: 1,
    errors: [{ row_number: 2, message: '2行目: 活動日を入力してください' }],
    communication_ids: created,
  },
};
const finished = {
  type: 'CommunicationImportFinished',
  data: {
    import_id: importId,
    status: 'completed',
    imported_row_count: 2,
    failed_row_count: 1,
    unprocessed_row_count: 0,
    abortion_row_number: null,
    error: null,
  },
};

describe('communication import decider', () => {
  it('records a request once with its mode', () => {
    given(communicationImportDecider)
      .when({
        type: 'RequestCommunicationImport',
        importId,
        filename: 'a.csv',
        storedPath: '/x/a.csv',
        encoding: 'shift_jis',
        mode: 'update',
      })
      .then([
        {
          type: 'CommunicationImportRequested',
          data: {
            import_id: importId,
            filename: 'a.csv',
            stored_path: '/x/a.csv',
            encoding: 'shift_jis',
            mode: 'update',
          },
        },
      ]);
    given(communicationImportDecider, [requested])
      .when({
        type: 'RequestCommunicationImport',
        importId,
        filename: 'a.csv',
        storedPath: '/x/a.csv',
        encoding: null,
        mode: 'create',
      })
      .thenRejected(invalid({ field: 'file', message: 'この取り込みは既に登録されています' }));
  });

  it('knows the records an import created and whether it still runs', () => {
    const state = (events: { type: string; data: unknown }[]) =>
      fold(communicationImportDecider, events.map(communicationImportDecider.parse));
    expect(state([requested, started, chunk]).createdIds).toEqual(created);
    expect(importRunning(state([requested]))).toBe(true);
    expect(importRunning(state([requested, started, chunk]))).toBe(true);
    expect(importRunning(state([requested, started, chunk, finished]))).toBe(false);
  });

  it('undoes a finished import once; an unknown or undone import is not found', () => {
    given(communicationImportDecider, [requested, started, chunk, finished])
      .when({ type: 'DeleteCommunicationImport', importId })
      .then([{ type: 'CommunicationImportDeleted', data: { import_id: importId } }]);
    given(communicationImportDecider, [
      requested,
      started,
      chunk,
      finished,
      { type: 'CommunicationImportDeleted', data: { import_id: importId } },
    ])
      .when({ type: 'DeleteCommunicationImport', importId })
      .thenRejected(notFound());
    given(communicationImportDecider).when({ type: 'DeleteCommunicationImport', importId }).thenRejected(notFound());
  });
});
