import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { LabelValueImportChunkProcessed, LabelValueImportFinished, LabelValueImportStarted } from '@renkei/domain';

/**
 * The statements that keep an import record's progress (status, counts, row errors), shared by every
 * import table with the label-value import's columns. `table` is the projection's physical table.
 */
export const importProgress = {
  requested: (
    trx: Kysely<unknown>,
    table: RawBuilder<unknown>,
    tenantId: string,
    r: { import_id: string; filename: string; created_at: Date; created_by: string | null },
  ) =>
    sql`INSERT INTO ${table} (tenant_id, id, filename, status, created_at, created_by)
      VALUES (${tenantId}, ${r.import_id}, ${r.filename}, 'waiting', ${r.created_at.toISOString()}, ${r.created_by})
      ON CONFLICT DO NOTHING`.execute(trx),
  started: (trx: Kysely<unknown>, table: RawBuilder<unknown>, tenantId: string, d: LabelValueImportStarted) =>
    sql`UPDATE ${table} SET status = 'processing', total_row_count = ${d.total_row_count},
      unprocessed_row_count = ${d.total_row_count}, imported_row_count = 0, failed_row_count = 0, error_messages = '[]'
      WHERE tenant_id = ${tenantId} AND id = ${d.import_id}`.execute(trx),
  chunkProcessed: (
    trx: Kysely<unknown>,
    table: RawBuilder<unknown>,
    tenantId: string,
    d: LabelValueImportChunkProcessed,
  ) =>
    sql`UPDATE ${table} SET imported_row_count = imported_row_count + ${d.imported_row_count},
      failed_row_count = failed_row_count + ${d.failed_row_count},
      unprocessed_row_count = greatest(unprocessed_row_count - ${d.imported_row_count + d.failed_row_count}, 0),
      error_messages = error_messages || ${JSON.stringify(d.errors)}::jsonb
      WHERE tenant_id = ${tenantId} AND id = ${d.import_id}`.execute(trx),
  finished: (trx: Kysely<unknown>, table: RawBuilder<unknown>, tenantId: string, d: LabelValueImportFinished) =>
    sql`UPDATE ${table} SET status = ${d.status}, imported_row_count = ${d.imported_row_count},
      failed_row_count = ${d.failed_row_count}, unprocessed_row_count = ${d.unprocessed_row_count},
      abortion_row_number = ${d.abortion_row_number},
      error_messages = error_messages || ${JSON.stringify(d.error ? [d.error] : [])}::jsonb
      WHERE tenant_id = ${tenantId} AND id = ${d.import_id}`.execute(trx),
};
