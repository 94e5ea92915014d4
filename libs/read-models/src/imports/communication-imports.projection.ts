import { sql } from 'kysely';
import { defineProjection } from '@renkei/projections';
import { AccountRegistered, AccountUpdated, communicationImportEventSchemas, eventDecoder } from '@renkei/domain';
import { createTables, insertRows, tableNames, type WriteRow } from '../shared/table.ts';
import { communicationImportAccountsTable, communicationImportsTable } from './communication-imports.tables.ts';
import { importProgress } from './import-progress.ts';

const decode = eventDecoder({ ...communicationImportEventSchemas, AccountRegistered, AccountUpdated });
const tables = [communicationImportsTable, communicationImportAccountsTable] as const;

/**
 * `rm.communication_imports`: one row per communication import with its progress, for the import
 * page (an undone import leaves it); `rm.communication_import_accounts`: the staff an import row may
 * name by email or name.
 */
export const communicationImportsProjection = defineProjection({
  name: 'communication_imports',
  version: 1,
  eventTypes: decode.types,
  tables: tableNames(tables),
  setup: (trx, t) => createTables(trx, tables, t),
  async handle(trx, events, t) {
    const table = sql.table(t.communication_imports);
    const accounts = new Map<string, WriteRow<typeof communicationImportAccountsTable>>();
    for (const recorded of events) {
      const event = decode(recorded);
      const tenantId = recorded.metadata.tenant_id;
      switch (event.type) {
        case 'AccountRegistered':
        case 'AccountUpdated':
          accounts.set(`${event.data.tenant_id}:${event.data.account_id}`, {
            tenant_id: event.data.tenant_id,
            account_id: event.data.account_id,
            name: event.data.username,
            email: event.data.email,
          });
          break;
        case 'CommunicationImportRequested':
          await importProgress.requested(trx, table, tenantId, {
            import_id: event.data.import_id,
            filename: event.data.filename,
            created_at: recorded.created_at,
            created_by: recorded.metadata.account_id,
          });
          if (event.data.mode === 'update')
            await sql`UPDATE ${table} SET import_type = 'communication_update'
              WHERE tenant_id = ${tenantId} AND id = ${event.data.import_id}`.execute(trx);
          break;
        case 'CommunicationImportStarted':
          await importProgress.started(trx, table, tenantId, event.data);
          break;
        case 'CommunicationImportChunkProcessed':
          await importProgress.chunkProcessed(trx, table, tenantId, event.data);
          break;
        case 'CommunicationImportFinished':
          await importProgress.finished(trx, table, tenantId, event.data);
          break;
        case 'CommunicationImportDeleted':
          await sql`DELETE FROM ${table} WHERE tenant_id = ${tenantId} AND id = ${event.data.import_id}`.execute(trx);
          break;
        default: {
          const never: never = event;
          throw new Error(`communication_imports: unexpected event ${JSON.stringify(never)}`);
        }
      }
    }
    await insertRows(trx, t.communication_import_accounts, communicationImportAccountsTable, [...accounts.values()], {
      onConflict: sql`ON CONFLICT (tenant_id, account_id) DO UPDATE SET name = excluded.name, email = excluded.email`,
    });
  },
});
