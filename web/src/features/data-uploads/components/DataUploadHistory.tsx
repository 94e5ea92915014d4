import { Badge, Button, Group, Paper, ScrollArea, Table, Text, Tooltip } from '@mantine/core';
import { maxUnknownDepartments, type DataUploadRecord } from '@renkei/contracts';
import { useState } from 'react';
import { formatDateTime } from '../../../app/dates.ts';
import { ImportFileCell, ImportStatusCell } from '../../imports/components/ImportRecordCells.tsx';
import { ImportErrorLines } from '../../imports/components/ImportRecordList.tsx';
import { uploadTypeLabel } from './labels.ts';
import { noWrap } from '../../../ui/table-styles.ts';
import { canWithdraw } from '../data-uploads.queries.ts';
import { WithdrawDataUploadModal } from './WithdrawDataUploadModal.tsx';
import { nothingImported, UploadStatusBadge } from './UploadStatusBadge.tsx';

const withdrawingExplanation = '取り込んだ行を集計から外しています。完了すると履歴から消えます。';

/** In place of the run's status, which no longer matters: the record is on its way out of the history. */
function WithdrawingCell() {
  return (
    <Table.Td>
      {/* Focusable, so the explanation is there for the keyboard too, and opens on a tap. */}
      <Tooltip
        label={withdrawingExplanation}
        multiline
        w={240}
        withArrow
        events={{ hover: true, focus: true, touch: true }}
      >
        <Badge color="orange" variant="light" tabIndex={0} data-testid="upload-withdrawing">
          取り消し中
        </Badge>
      </Tooltip>
    </Table.Td>
  );
}

function UploadRow({ record, onWithdraw }: { record: DataUploadRecord; onWithdraw: () => void }) {
  const [open, setOpen] = useState(false);
  const unknownDepartments = record.unknown_departments ?? [];
  const details = record.error_messages.length + record.unmatched_institutions.length + unknownDepartments.length;
  return (
    <>
      <Table.Tr
        data-upload-filename={record.filename}
        data-upload-status={record.status}
        data-upload-withdrawing={record.withdrawing || undefined}
      >
        <Table.Td>{formatDateTime(record.created_at)}</Table.Td>
        <Table.Td>{uploadTypeLabel[record.import_type]}</Table.Td>
        <ImportFileCell record={record} />
        {record.withdrawing ? (
          <WithdrawingCell />
        ) : nothingImported(record) ? (
          <Table.Td>
            <UploadStatusBadge record={record} />
          </Table.Td>
        ) : (
          <ImportStatusCell record={record} label="取り込みの進み具合" testId="upload-progress" />
        )}
        <Table.Td ta="right">{record.imported_row_count.toLocaleString('ja-JP')}</Table.Td>
        <Table.Td ta="right" c={record.failed_row_count > 0 ? 'red' : undefined}>
          {record.failed_row_count.toLocaleString('ja-JP')}
        </Table.Td>
        <Table.Td ta="right">{record.new_record_count.toLocaleString('ja-JP')}</Table.Td>
        <Table.Td ta="right">{record.updated_record_count.toLocaleString('ja-JP')}</Table.Td>
        <Table.Td ta="right">{record.unchanged_record_count.toLocaleString('ja-JP')}</Table.Td>
        <Table.Td ta="right" c={record.unmatched_row_count > 0 ? 'orange' : undefined}>
          {record.unmatched_row_count.toLocaleString('ja-JP')}
        </Table.Td>
        <Table.Td>
          <Group gap={4} wrap="nowrap">
            {details > 0 && (
              <Button
                size="compact-xs"
                variant="subtle"
                onClick={() => setOpen((o) => !o)}
                // Every row has one: its name says whose details, its state whether they are shown.
                aria-label={`「${record.filename}」の詳細`}
                aria-expanded={open}
              >
                {open ? '閉じる' : '詳細'}
              </Button>
            )}
            {canWithdraw(record) && (
              <Button
                size="compact-xs"
                variant="subtle"
                color="red"
                onClick={onWithdraw}
                aria-label={`「${record.filename}」の取り込みを取り消す`}
                data-testid="withdraw-upload"
              >
                取り消す
              </Button>
            )}
          </Group>
        </Table.Td>
      </Table.Tr>
      {open && (
        <Table.Tr>
          <Table.Td colSpan={11} p={0}>
            <Paper p="xs" data-testid="upload-details">
              {record.unmatched_institutions.length > 0 && (
                <>
                  <Text size="xs" fw={600}>
                    照合できなかった医療機関（行は取り込み済み。ページ下の「照合できなかった医療機関」で医療機関を選ぶと照合されます）
                  </Text>
                  {record.unmatched_institutions.map((u, i) => (
                    <Text key={i} size="xs">
                      {[u.code, u.name].filter(Boolean).join(' ')}（{u.row_count}行）
                    </Text>
                  ))}
                </>
              )}
              {unknownDepartments.length > 0 && (
                <Text size="xs" data-testid="unknown-departments">
                  <Text span size="xs" fw={600}>
                    自院診療科に該当しない名称（{(record.unknown_department_row_count ?? 0).toLocaleString('ja-JP')}
                    行。行は診療科未設定として取り込み済み）:
                  </Text>{' '}
                  {unknownDepartments.map((d) => `${d.name} (${d.row_count.toLocaleString('ja-JP')}行)`).join('、')}
                  {unknownDepartments.length >= maxUnknownDepartments && ' …'}
                </Text>
              )}
              <ImportErrorLines messages={record.error_messages} color="red" />
            </Paper>
          </Table.Td>
        </Table.Tr>
      )}
    </>
  );
}

/**
 * The uploads, newest first: status and progress, rows read and refused, records new / updated / already
 * there, unmatched; a finished list or FF1 can be withdrawn, and shows so until its rows are taken back.
 */
export function DataUploadHistory({ records }: { records: DataUploadRecord[] }) {
  const [withdrawing, setWithdrawing] = useState<DataUploadRecord | null>(null);
  return (
    <>
      {records.length === 0 ? (
        <Text size="sm" c="dimmed">
          まだアップロードはありません。上のカードからファイルを選んでアップロードしてください。
        </Text>
      ) : (
        <ScrollArea>
          <Table striped fz="sm" data-testid="upload-history">
            <Table.Thead>
              <Table.Tr style={noWrap}>
                <Table.Th>日時</Table.Th>
                <Table.Th>種類</Table.Th>
                <Table.Th>ファイル</Table.Th>
                <Table.Th>状態</Table.Th>
                <Table.Th ta="right">取込行</Table.Th>
                <Table.Th ta="right">エラー行</Table.Th>
                <Table.Th ta="right">新規</Table.Th>
                <Table.Th ta="right">更新</Table.Th>
                <Table.Th ta="right">登録済み</Table.Th>
                <Table.Th ta="right">医療機関未照合</Table.Th>
                <Table.Th />
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {records.map((r) => (
                <UploadRow key={r.id} record={r} onWithdraw={() => setWithdrawing(r)} />
              ))}
            </Table.Tbody>
          </Table>
        </ScrollArea>
      )}
      {/* Beside the list, not in a row: a small upload's record may leave the list before the modal closes. */}
      {withdrawing && <WithdrawDataUploadModal record={withdrawing} onClose={() => setWithdrawing(null)} />}
    </>
  );
}
