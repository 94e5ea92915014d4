import { column, defineTable, type KyselyTables } from '../shared/table.ts';

/** The settings of every tenant that query-side pages need, one row per tenant. */
export const tenantSettingsTable = defineTable({
  name: 'tenant_settings',
  columns: {
    tenant_id: column.uuid(),
    enabled_phase: column.boolean(),
    medical_institution_id: column.text().nullable(),
    group_medical_institution_ids: column.uuidArray(),
    version: column.int(),
    created_at: column.timestamptz(),
    updated_at: column.timestamptz(),
  },
  primaryKey: ['tenant_id'],
});

export type TenantSettingsTables = KyselyTables<typeof tenantSettingsTable>;
