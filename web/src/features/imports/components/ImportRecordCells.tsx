import { Progress, Stack, Table, Text } from '@mantine/core';
import type { ImportRecord } from '@renkei/contracts';
import { isRunning, progressOf } from '../imports.queries.ts';
import { ImportStatusBadge } from './ImportStatusBadge.tsx';

type RecordShown = Pick<
  ImportRecord,
  'filename' | 'created_by' | 'status' | 'imported_row_count' | 'failed_row_count' | 'unprocessed_row_count'
>;

/** The file and who uploaded it, as every import history shows them. */
export function ImportFileCell({ record }: { record: RecordShown }) {
  return (
    <Table.Td>
      <Text size="sm" fw={500}>
        {record.filename}
      </Text>
      <Text size="xs" c="dimmed">
        {record.created_by?.name ?? ''}
      </Text>
    </Table.Td>
  );
}

/** The status, with a progress bar while the import runs (`label`: what the bar is read as). */
export function ImportStatusCell({ record, label, testId }: { record: RecordShown; label: string; testId: string }) {
  return (
    <Table.Td>
      <Stack gap={4}>
        <ImportStatusBadge status={record.status} />
        {isRunning(record) && (
          <Progress value={progressOf(record)} size="sm" animated striped aria-label={label} data-testid={testId} />
        )}
      </Stack>
    </Table.Td>
  );
}
