import type { LabelValueImportFinished } from '@renkei/domain';
import { column, defineTable, type KyselyTables } from '../shared/table.ts';

type ImportStatus = 'waiting' | 'processing' | LabelValueImportFinished['status'];

/** One row per label-value import with its progress, for the import page. */
export const labelValueImportsTable = defineTable({
  name: 'label_value_imports',
  columns: {
    tenant_id: column.uuid(),
    id: column.uuid(),
    filename: column.text(),
    status: column.text<ImportStatus>(),
    error_messages: column.jsonb<{ row_number: number | null; message: string }[]>().default(`'[]'`),
    total_row_count: column.int().default('0'),
    imported_row_count: column.int().default('0'),
    failed_row_count: column.int().default('0'),
    unprocessed_row_count: column.int().default('0'),
    abortion_row_number: column.int().nullable(),
    created_at: column.timestamptz(),
    created_by: column.uuid().nullable(),
  },
  primaryKey: ['tenant_id', 'id'],
  indexes: [['tenant_id', 'created_at DESC', 'id']],
});

export type LabelValueImportsTables = KyselyTables<typeof labelValueImportsTable>;
