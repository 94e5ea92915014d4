import { sql } from 'kysely';
import { defineProjection } from '@renkei/projections';
import { eventDecoder, labelValueImportEventSchemas } from '@renkei/domain';
import { createTables, tableNames } from '../shared/table.ts';
import { labelValueImportsTable } from './label-value-imports.tables.ts';

const decode = eventDecoder(labelValueImportEventSchemas);

/** `rm.label_value_imports`: one row per label-value import with its progress, for the import page. */
export const labelValueImportsProjection = defineProjection({
  name: 'label_value_imports',
  version: 1,
  eventTypes: decode.types,
  tables: tableNames([labelValueImportsTable]),
  setup: (trx, t) => createTables(trx, [labelValueImportsTable], t),
  async handle(trx, events, t) {
    const table = sql.table(t.label_value_imports);
    for (const recorded of events) {
      const event = decode(recorded);
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
