import { sql } from 'kysely';
import { defineProjection } from '@renkei/projections';
import { dashboardEventSchemas, eventDecoder, type DashboardFields } from '@renkei/domain';
import { createTables, insertRows, tableNames } from '../shared/table.ts';
import { dashboardsTable } from './dashboards.tables.ts';

const decode = eventDecoder(dashboardEventSchemas);

/** A dashboard as the batch leaves it: a new row, a change of an earlier batch's row, or gone. */
interface Folded {
  tenantId: string;
  created: { createdBy: string | null; createdByName: string | null; at: Date } | null;
  fields: DashboardFields;
  revision: number;
  updated: Date;
  deleted: boolean;
}

/** `rm.dashboards`: the tenants' dashboards as last saved; a deleted one's row goes. */
export const dashboardsProjection = defineProjection({
  name: 'dashboards',
  version: 1,
  eventTypes: decode.types,
  tables: tableNames([dashboardsTable]),
  setup: (trx, t) => createTables(trx, [dashboardsTable], t),
  async handle(trx, events, t) {
    const folded = new Map<string, Folded>();
    for (const recorded of events) {
      const event = decode(recorded);
      const tenantId = recorded.metadata.tenant_id;
      const key = `${tenantId}:${event.data.dashboard_id}`;
      const prev = folded.get(key);
      switch (event.type) {
        case 'DashboardCreated': {
          const { created_by_name, ...fields } = event.data;
          folded.set(key, {
            tenantId,
            created: {
              createdBy: recorded.metadata.account_id,
              createdByName: created_by_name,
              at: recorded.created_at,
            },
            fields,
            revision: recorded.revision,
            updated: recorded.created_at,
            deleted: false,
          });
          break;
        }
        case 'DashboardUpdated':
          folded.set(key, {
            tenantId,
            created: prev?.created ?? null,
            fields: event.data,
            revision: recorded.revision,
            updated: recorded.created_at,
            deleted: false,
          });
          break;
        case 'DashboardDeleted':
          folded.set(key, {
            tenantId,
            created: null,
            fields: prev?.fields ?? {
              dashboard_id: event.data.dashboard_id,
              name: '',
              filter_department: null,
              medical_institution_label_id: null,
              contents: [],
            },
            revision: recorded.revision,
            updated: recorded.created_at,
            deleted: true,
          });
          break;
        default: {
          const never: never = event;
          throw new Error(`dashboards projection: unexpected event ${JSON.stringify(never)}`);
        }
      }
    }
    const live = [...folded.values()].filter((d) => !d.deleted);
    const row = (d: Folded) => ({
      tenant_id: d.tenantId,
      id: d.fields.dashboard_id,
      name: d.fields.name,
      filter_department: d.fields.filter_department,
      medical_institution_label_id: d.fields.medical_institution_label_id,
      contents: d.fields.contents,
      version: d.revision,
      updated_at: d.updated.toISOString(),
    });
    // A replayed batch finds its rows at their revision and leaves them.
    await insertRows(
      trx,
      t.dashboards,
      dashboardsTable,
      live.flatMap((d) =>
        d.created
          ? [
              {
                ...row(d),
                created_by: d.created.createdBy,
                created_by_name: d.created.createdByName,
                created_at: d.created.at.toISOString(),
              },
            ]
          : [],
      ),
      { onConflict: sql`ON CONFLICT (tenant_id, id) DO NOTHING` },
    );
    const changed = live.filter((d) => !d.created);
    if (changed.length > 0) {
      await sql`
        UPDATE ${sql.table(t.dashboards)} AS cur
           SET name = d.name, filter_department = d.filter_department,
               medical_institution_label_id = d.medical_institution_label_id, contents = d.contents,
               version = d.version, updated_at = d.updated_at
          FROM jsonb_to_recordset(${JSON.stringify(changed.map(row))}::jsonb)
               AS d(tenant_id uuid, id uuid, name text, filter_department uuid, medical_institution_label_id uuid,
                    contents jsonb, version int, updated_at timestamptz)
         WHERE cur.tenant_id = d.tenant_id AND cur.id = d.id AND cur.version < d.version`.execute(trx);
    }
    const deleted = [...folded.values()].filter((d) => d.deleted);
    if (deleted.length > 0) {
      await sql`
        DELETE FROM ${sql.table(t.dashboards)} AS cur
         USING unnest(${sql.val(deleted.map((d) => d.tenantId))}::uuid[],
                      ${sql.val(deleted.map((d) => d.fields.dashboard_id))}::uuid[]) AS d(tenant_id, id)
         WHERE cur.tenant_id = d.tenant_id AND cur.id = d.id`.execute(trx);
    }
  },
});
