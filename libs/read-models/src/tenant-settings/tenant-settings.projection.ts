import { sql } from 'kysely';
import { defineProjection } from '@renkei/projections';
import { eventDecoder, TenantRegistered, TenantSettingsChanged } from '@renkei/domain';
import { createTables, tableNames, type WriteRow } from '../shared/table.ts';
import { tenantSettingsTable } from './tenant-settings.tables.ts';

type SettingsRow = Omit<WriteRow<typeof tenantSettingsTable>, 'created_at' | 'updated_at'> & { changed_at: Date };

const decode = eventDecoder({ TenantRegistered, TenantSettingsChanged });

/**
 * `rm.tenant_settings`: the settings of every tenant that query-side pages need, as the identity
 * service last published them (one row per tenant, the tenant stream's last event wins). Fields an
 * older event lacks take the schemas' defaults when the event is decoded.
 */
export const tenantSettingsProjection = defineProjection({
  name: 'tenant_settings',
  version: 1,
  eventTypes: decode.types,
  tables: tableNames([tenantSettingsTable]),
  setup: (trx, t) => createTables(trx, [tenantSettingsTable], t),
  async handle(trx, events, t) {
    const latest = new Map<string, SettingsRow>();
    for (const recorded of events) {
      const event = decode(recorded);
      const tenantId = recorded.metadata.tenant_id.toLowerCase();
      // A registration carries neither institution field: the tenant has none yet.
      const registered = event.type === 'TenantRegistered';
      latest.set(tenantId, {
        tenant_id: tenantId,
        enabled_phase: event.data.enabled_phase,
        medical_institution_id: registered ? null : event.data.medical_institution_id,
        group_medical_institution_ids: registered ? [] : event.data.group_medical_institution_ids,
        version: recorded.revision,
        changed_at: recorded.created_at,
      });
    }
    const rows = [...latest.values()];
    if (rows.length === 0) return;
    // An array per row does not fit unnest: the batch goes as one jsonb parameter.
    await sql`
      INSERT INTO ${sql.table(t.tenant_settings)} AS cur
        (tenant_id, enabled_phase, medical_institution_id, group_medical_institution_ids, version, created_at, updated_at)
      SELECT r.tenant_id, r.enabled_phase, r.medical_institution_id,
             r.group_ids, r.version, r.changed_at, r.changed_at
        FROM jsonb_to_recordset(${JSON.stringify(
          rows.map((r) => ({
            tenant_id: r.tenant_id,
            enabled_phase: r.enabled_phase,
            medical_institution_id: r.medical_institution_id,
            group_ids: r.group_medical_institution_ids,
            version: r.version,
            changed_at: r.changed_at.toISOString(),
          })),
        )}::jsonb) AS r(tenant_id uuid, enabled_phase boolean, medical_institution_id text, group_ids uuid[],
                        version int, changed_at timestamptz)
      ON CONFLICT (tenant_id) DO UPDATE SET
        enabled_phase = excluded.enabled_phase,
        medical_institution_id = excluded.medical_institution_id,
        group_medical_institution_ids = excluded.group_medical_institution_ids,
        version = excluded.version,
        updated_at = excluded.updated_at
      WHERE cur.version < excluded.version
    `.execute(trx);
  },
});
