import { sql } from 'kysely';
import { defineProjection } from '@renkei/projections';
import { eventDecoder, labelValueImportEventSchemas } from '@renkei/domain';
import { createTables, tableNames } from '../shared/table.ts';
import { labelValueImportsTable } from './label-value-imports.tables.ts';
import { importProgress } from './import-progress.ts';

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
          await importProgress.requested(trx, table, tenantId, {
            import_id: event.data.import_id,
            filename: event.data.filename,
            created_at: recorded.created_at,
            created_by: recorded.metadata.account_id,
          });
          break;
        case 'LabelValueImportStarted':
          await importProgress.started(trx, table, tenantId, event.data);
          break;
        case 'LabelValueImportChunkProcessed':
        case 'MedicalInstitutionLabelValuesImported':
          await importProgress.chunkProcessed(trx, table, tenantId, event.data);
          break;
        case 'LabelValueImportFinished':
          await importProgress.finished(trx, table, tenantId, event.data);
          break;
        default: {
          const never: never = event;
          throw new Error(`label_value_imports: unexpected event ${JSON.stringify(never)}`);
        }
      }
    }
  },
});
