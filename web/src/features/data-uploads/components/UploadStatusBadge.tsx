import { Badge, Tooltip } from '@mantine/core';
import type { ImportRecord } from '@renkei/contracts';
import { ImportStatusBadge } from '../../imports/components/ImportStatusBadge.tsx';

type StatusShown = Pick<ImportRecord, 'status' | 'imported_row_count' | 'failed_row_count'>;

/** A run that ended without taking a single row: the file was read, but nothing of it counts. */
export const nothingImported = (record: StatusShown): boolean =>
  record.status === 'completed' && record.imported_row_count === 0;

/**
 * An import's state; an import that completed without taking a row (every row refused, say an FF1 of
 * another 施設コード, or a file of no data row) is not the green 「完了」 of a file taken in.
 */
export function UploadStatusBadge({ record }: { record: StatusShown }) {
  if (!nothingImported(record)) return <ImportStatusBadge status={record.status} />;
  const why =
    record.failed_row_count > 0
      ? 'すべての行がエラーで、取り込まれた行はありません。取り込みの履歴の「詳細」で行ごとの理由を確認し、直したファイルをアップロードしてください。'
      : 'データ行がなく、取り込まれた行はありません。';
  return (
    // Focusable, so the explanation is there for the keyboard too, and opens on a tap.
    <Tooltip label={why} multiline w={260} withArrow events={{ hover: true, focus: true, touch: true }}>
      <Badge
        color="orange"
        variant="light"
        tabIndex={0}
        aria-label={`取り込み0行: ${why}`}
        data-testid="upload-nothing-imported"
      >
        取り込み0行
      </Badge>
    </Tooltip>
  );
}
