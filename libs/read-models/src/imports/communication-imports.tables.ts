import { column, defineTable, type KyselyTables } from '../shared/table.ts';
import { labelValueImportsTable } from './label-value-imports.tables.ts';

/** One row per communication import (create or update) with its progress: the label-value import's record. */
export const communicationImportsTable = defineTable({
  name: 'communication_imports',
  columns: {
    ...labelValueImportsTable.columns,
    // Written by the progress statements shared with the label-value import, then set for an update import.
    import_type: column.text<'communication' | 'communication_update'>().default(`'communication'`),
  },
  primaryKey: ['tenant_id', 'id'],
  indexes: [['tenant_id', 'created_at DESC', 'id']],
});

/**
 * The tenant's staff as an import names them (by email or name): no other read model keeps their
 * emails. Deactivated accounts stay: a record may be about a former colleague's visit, as a record
 * entered by hand may.
 */
export const communicationImportAccountsTable = defineTable({
  name: 'communication_import_accounts',
  columns: {
    tenant_id: column.uuid(),
    account_id: column.uuid(),
    name: column.text(),
    email: column.text().nullable(),
  },
  primaryKey: ['tenant_id', 'account_id'],
});

export type CommunicationImportsTables = KyselyTables<
  typeof communicationImportsTable | typeof communicationImportAccountsTable
>;
