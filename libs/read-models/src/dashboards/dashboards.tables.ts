import { column, defineTable, type KyselyTables } from '../shared/table.ts';

type DashboardReportType =
  'area_report' | 'communication_report' | 'medical_institution_report' | 'own_department_report';

/** One row per live dashboard of every tenant. */
export const dashboardsTable = defineTable({
  name: 'dashboards',
  columns: {
    tenant_id: column.uuid(),
    id: column.uuid(),
    name: column.text(),
    filter_department: column.uuid().nullable(),
    medical_institution_label_id: column.uuid().nullable(),
    /** The reports in their order; a report deleted since stays here (the screen shows it as deleted). */
    contents: column.jsonb<{ report_type: DashboardReportType; report_id: string }[]>(),
    created_by: column.uuid().nullable(),
    /** The creator's name when created (the account's current name is preferred on read). */
    created_by_name: column.text().nullable(),
    created_at: column.timestamptz(),
    updated_at: column.timestamptz(),
    /** The stream's revision: the dashboard's If-Match. */
    version: column.int(),
  },
  primaryKey: ['tenant_id', 'id'],
  indexes: [['tenant_id', 'created_at DESC', 'id']],
});

export type DashboardsTables = KyselyTables<typeof dashboardsTable>;
