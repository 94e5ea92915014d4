import { Button, Paper, Table, Text } from '@mantine/core';
import type { ImportErrorMessage, ImportRecord } from '@renkei/contracts';
import { useState, type ReactNode } from 'react';
import { formatDateTime } from '../../../app/dates.ts';
import { ImportFileCell, ImportStatusCell } from './ImportRecordCells.tsx';

/** The row number leads each message, once (the importer may already have written it). */
export function errorLine(e: ImportErrorMessage): string {
  if (e.row_number === null) return `ファイル: ${e.message}`;
  const prefix = `${e.row_number}行目`;
  return e.message.startsWith(prefix) ? e.message : `${prefix}: ${e.message}`;
}

/** A record's row errors, one line each, as its expanded details show them. */
export function ImportErrorLines({ messages, color }: { messages: ImportErrorMessage[]; color?: string }) {
  return messages.map((e, i) => (
    <Text key={i} size="xs" c={color}>
      {errorLine(e)}
    </Text>
  ));
}

/** What a list may add at the end of a record's row (an undo, for imports that can be undone). */
type RecordActions = (record: ImportRecord) => ReactNode;

function ImportRow({ record, actions }: { record: ImportRecord; actions?: RecordActions | undefined }) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <Table.Tr data-import-filename={record.filename} data-import-status={record.status}>
        <Table.Td>{formatDateTime(record.created_at)}</Table.Td>
        <ImportFileCell record={record} />
        <ImportStatusCell record={record} label="インポートの進み具合" testId="import-progress" />
        <Table.Td ta="right">{record.imported_row_count}</Table.Td>
        <Table.Td ta="right" c={record.failed_row_count > 0 ? 'red' : undefined}>
          {record.failed_row_count}
        </Table.Td>
        <Table.Td ta="right">{record.unprocessed_row_count}</Table.Td>
        <Table.Td>{record.abortion_row_number !== null ? `${record.abortion_row_number}行目` : ''}</Table.Td>
        <Table.Td>
          {record.error_messages.length > 0 && (
            <Button size="compact-xs" variant="subtle" color="red" onClick={() => setOpen((o) => !o)}>
              エラー{record.error_messages.length}件{open ? 'を閉じる' : 'を表示'}
            </Button>
          )}
          {actions?.(record)}
        </Table.Td>
      </Table.Tr>
      {open && (
        <Table.Tr>
          <Table.Td colSpan={8} p={0}>
            <Paper bg="red.0" p="xs" data-testid="import-errors">
              <ImportErrorLines messages={record.error_messages} />
            </Paper>
          </Table.Td>
        </Table.Tr>
      )}
    </>
  );
}

export function ImportRecordList({ records, actions }: { records: ImportRecord[]; actions?: RecordActions }) {
  if (records.length === 0) {
    return (
      <Text c="dimmed" size="sm">
        インポートの履歴はまだありません。テンプレートに値を記入してアップロードすると、ここに結果が表示されます。
      </Text>
    );
  }
  return (
    <Table.ScrollContainer minWidth={820}>
      <Table striped data-testid="import-records">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>日時</Table.Th>
            <Table.Th>ファイル</Table.Th>
            <Table.Th>状態</Table.Th>
            <Table.Th ta="right">取込</Table.Th>
            <Table.Th ta="right">失敗</Table.Th>
            <Table.Th ta="right">未処理</Table.Th>
            <Table.Th>中断行</Table.Th>
            <Table.Th />
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {records.map((r) => (
            <ImportRow key={r.id} record={r} actions={actions} />
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}
