import type { ReportAlertSettings, ReportKind } from '@renkei/contracts';
import type { StoredReportDefinition } from '@renkei/domain';
import { column, defineTable, type KyselyTables } from '../../shared/table.ts';

/**
 * One row per live report definition of every tenant, all four kinds. The report engine runs a saved
 * definition from `definition` by id, so these column names are a contract with it.
 */
export const reportDefinitionsTable = defineTable({
  name: 'report_definitions',
  columns: {
    tenant_id: column.uuid(),
    id: column.uuid(),
    kind: column.text<ReportKind>(),
    name: column.text(),
    /** display_items, filter_conditions, sort_conditions, aggregation_settings as saved. */
    definition: column.jsonb<StoredReportDefinition>(),
    alert_settings: column
      .jsonb<ReportAlertSettings>()
      .default(`'{"enabled":false,"conditions":[],"notify_user_ids":[]}'::jsonb`),
    /** The last day (JST) the alert fired; institution reports only. */
    alert_date: column.date().nullable(),
    created_by_id: column.uuid().nullable(),
    /** The creator's name when created (the account's current name is preferred on read). */
    created_by_name: column.text().nullable(),
    created_at: column.timestamptz(),
    updated_at: column.timestamptz(),
    /** The definition's own version (If-Match): user writes only, carried by their events. */
    version: column.int(),
  },
  primaryKey: ['tenant_id', 'id'],
  indexes: [['tenant_id', 'kind', 'created_at']],
});

export type ReportDefinitionsTables = KyselyTables<typeof reportDefinitionsTable>;
