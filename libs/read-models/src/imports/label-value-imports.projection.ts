import { sql } from 'kysely';
import { defineProjection } from '@renkei/projections';
import type { LabelValueImportEvent } from '@renkei/domain';

/** `rm.label_value_imports`: one row per label-value import with its progress, for the import page. */
export const labelValueImportsProjection = defineProjection({
  name: 'label_value_imports',
  version: 1,
  eventTypes: [
    'LabelValueImportRequested',
    'LabelValueImportStarted',
    'LabelValueImportChunkProcessed',
    'LabelValueImportFinished',
  ],
  tables: ['label_value_imports'],
  async setup(trx, t) {
    await sql`
      CREATE TABLE ${sql.table(t.label_value_imports)} (
        tenant_id uuid NOT NULL, id uuid NOT NULL, filename text NOT NULL, status text NOT NULL,
        error_messages jsonb NOT NULL DEFAULT '[]', total_row_count int NOT NULL DEFAULT 0,
        imported_row_count int NOT NULL DEFAULT 0, failed_row_count int NOT NULL DEFAULT 0,
        unprocessed_row_count int NOT NULL DEFAULT 0, abortion_row_number int,
        created_at timestamptz NOT NULL, created_by uuid, PRIMARY KEY (tenant_id, id))`.execute(trx);
    await sql`CREATE INDEX ON ${sql.table(t.label_value_imports)} (tenant_id, created_at DESC, id)`.execute(trx);
  },
  async handle(trx, events, t) {
    const table = sql.table(t.label_value_imports);
    for (const recorded of events) {
      const event = { type: recorded.type, data: recorded.data } as LabelValueImportEvent;
      const tenantId = recorded.metadata.tenant_id;
      switch (event.type) {
        case 'LabelValueImportRequested':
          await sql`INSERT INTO ${table} (tenant_id, id, filename, status, created_at, created_by)
            VALUES (${tenantId}, ${event.data.import_id}, ${event.data.filename}, 'waiting', ${recorded.created_at.toISOString()}, ${recorded.metadata.account_id})
            ON CONFLICT DO NOTHING`.execute(trx);
          break;
        case 'LabelValueImportStarted':
          await sql`UPDATE ${table} SET status = 'processing', total_row_count = ${event.data.total_row_count},
            unprocessed_row_count = ${event.data.total_row_count}, imported_row_count = 0, failed_row_count = 0, error_messages = '[]'
            WHERE tenant_id = ${tenantId} AND id = ${event.data.import_id}`.execute(trx);
          break;
        case 'LabelValueImportChunkProcessed': {
          const d = event.data;
          await sql`UPDATE ${table} SET imported_row_count = imported_row_count + ${d.imported_row_count},
            failed_row_count = failed_row_count + ${d.failed_row_count},
            unprocessed_row_count = greatest(unprocessed_row_count - ${d.imported_row_count + d.failed_row_count}, 0),
            error_messages = error_messages || ${JSON.stringify(d.errors)}::jsonb
            WHERE tenant_id = ${tenantId} AND id = ${d.import_id}`.execute(trx);
          break;
        }
        case 'LabelValueImportFinished': {
          const d = event.data;
          await sql`UPDATE ${table} SET status = ${d.status}, imported_row_count = ${d.imported_row_count},
            failed_row_count = ${d.failed_row_count}, unprocessed_row_count = ${d.unprocessed_row_count},
            abortion_row_number = ${d.abortion_row_number},
            error_messages = error_messages || ${JSON.stringify(d.error ? [d.error] : [])}::jsonb
            WHERE tenant_id = ${tenantId} AND id = ${d.import_id}`.execute(trx);
          break;
        }
        default: {
          const never: never = event;
          throw new Error(`label_value_imports: unexpected event ${JSON.stringify(never)}`);
        }
      }
    }
  },
});
