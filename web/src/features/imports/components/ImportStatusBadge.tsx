import { Badge } from '@mantine/core';
import type { ImportStatus } from '@renkei/contracts';

const statusLabel: Record<ImportStatus, string> = {
  waiting: '待機中',
  processing: '処理中',
  completed: '完了',
  failed: '失敗',
};
const statusColor: Record<ImportStatus, string> = {
  waiting: 'gray',
  processing: 'blue',
  completed: 'teal',
  failed: 'red',
};

/** An import's state as every import list shows it (label-value imports, data uploads, sync status). */
export function ImportStatusBadge({ status }: { status: ImportStatus }) {
  return (
    <Badge color={statusColor[status]} variant="light">
      {statusLabel[status]}
    </Badge>
  );
}
