import { sql } from 'kysely';
import { defineProjection } from '@renkei/projections';
import { eventDecoder, reportDefinitionEventSchemas, type StoredReportDefinition } from '@renkei/domain';
import type { ReportAlertSettings, ReportKind } from '@renkei/contracts';
import { createTables, insertRows, tableNames } from '../../shared/table.ts';
import { reportDefinitionsTable } from './report-definitions.tables.ts';

const decode = eventDecoder(reportDefinitionEventSchemas);

/** A definition as the batch leaves it: a new row, changes to an earlier batch's row, or gone. */
interface Folded {
  tenantId: string;
  id: string;
  created: { kind: ReportKind; createdBy: string | null; createdByName: string | null; at: Date } | null;
  name: string | null;
  definition: StoredReportDefinition | null;
  alertSettings: ReportAlertSettings | null;
  alertDate: string | null;
  /** The version of the last user write of the batch (null: none). */
  version: number | null;
  updated: Date | null;
  deleted: boolean;
}

/**
 * `rm.report_definitions`: the saved reports of every kind with their alert settings and the day their
 * alert last fired. User writes are applied when their version is newer than the row's; an alert only
 * ever moves `alert_date` forward; a deleted definition's row goes.
 */
export const reportDefinitionsProjection = defineProjection({
  name: 'report_definitions',
  version: 1,
  eventTypes: decode.types,
  tables: tableNames([reportDefinitionsTable]),
  setup: (trx, t) => createTables(trx, [reportDefinitionsTable], t),
  async handle(trx, events, t) {
    const folded = new Map<string, Folded>();
    for (const recorded of events) {
      const event = decode(recorded);
      const tenantId = recorded.metadata.tenant_id;
      const id = event.data.report_definition_id;
      const key = `${tenantId}:${id}`;
      const at = recorded.created_at;
      const d = folded.get(key) ?? {
        tenantId,
        id,
        created: null,
        name: null,
        definition: null,
        alertSettings: null,
        alertDate: null,
        version: null,
        updated: null,
        deleted: false,
      };
      folded.set(key, d);
      switch (event.type) {
        case 'ReportDefinitionCreated':
          d.created = {
            kind: event.data.kind,
            createdBy: recorded.metadata.account_id,
            createdByName: event.data.created_by_name,
            at,
          };
          d.name = event.data.name;
          d.definition = event.data.definition;
          d.version = 0;
          d.updated = at;
          break;
        case 'ReportDefinitionUpdated':
          d.name = event.data.name;
          d.definition = event.data.definition;
          d.version = event.data.version;
          d.updated = at;
          break;
        case 'ReportAlertSettingsChanged':
          d.alertSettings = event.data.alert_settings;
          d.version = event.data.version;
          d.updated = at;
          break;
        case 'ReportAlertRaised':
          if (d.alertDate === null || d.alertDate < event.data.alert_date) d.alertDate = event.data.alert_date;
          break;
        case 'ReportDefinitionDeleted':
          d.deleted = true;
          break;
        default: {
          const never: never = event;
          throw new Error(`report definitions projection: unexpected event ${JSON.stringify(never)}`);
        }
      }
    }

    const live = [...folded.values()].filter((d) => !d.deleted);
    const created = live.flatMap((d) =>
      d.created
        ? [
            {
              tenant_id: d.tenantId,
              id: d.id,
              kind: d.created.kind,
              name: d.name!,
              definition: d.definition!,
              alert_settings: d.alertSettings ?? { enabled: false, conditions: [], notify_user_ids: [] },
              alert_date: d.alertDate,
              created_by_id: d.created.createdBy,
              created_by_name: d.created.createdByName,
              created_at: d.created.at.toISOString(),
              updated_at: d.updated!.toISOString(),
              version: d.version!,
            },
          ]
        : [],
    );
    // A replayed batch finds its rows and leaves them.
    await insertRows(trx, t.report_definitions, reportDefinitionsTable, created, {
      onConflict: sql`ON CONFLICT (tenant_id, id) DO NOTHING`,
    });

    const edited = live.filter((d) => !d.created && d.version !== null);
    if (edited.length > 0) {
      await sql`
        UPDATE ${sql.table(t.report_definitions)} AS cur
           SET name = coalesce(d.name, cur.name), definition = coalesce(d.definition, cur.definition),
               alert_settings = coalesce(d.alert_settings, cur.alert_settings),
               version = d.version, updated_at = d.updated_at
          FROM jsonb_to_recordset(${JSON.stringify(
            edited.map((d) => ({
              tenant_id: d.tenantId,
              id: d.id,
              name: d.name,
              definition: d.definition,
              alert_settings: d.alertSettings,
              version: d.version,
              updated_at: d.updated!.toISOString(),
            })),
          )}::jsonb) AS d(tenant_id uuid, id uuid, name text, definition jsonb, alert_settings jsonb, version int,
                          updated_at timestamptz)
         WHERE cur.tenant_id = d.tenant_id AND cur.id = d.id AND cur.version < d.version`.execute(trx);
    }

    const alerted = live.filter((d) => !d.created && d.alertDate !== null);
    if (alerted.length > 0) {
      await sql`
        UPDATE ${sql.table(t.report_definitions)} AS cur
           SET alert_date = d.alert_date
          FROM unnest(${sql.val(alerted.map((d) => d.tenantId))}::uuid[], ${sql.val(alerted.map((d) => d.id))}::uuid[],
                      ${sql.val(alerted.map((d) => d.alertDate))}::date[]) AS d(tenant_id, id, alert_date)
         WHERE cur.tenant_id = d.tenant_id AND cur.id = d.id
           AND (cur.alert_date IS NULL OR cur.alert_date < d.alert_date)`.execute(trx);
    }

    const deleted = [...folded.values()].filter((d) => d.deleted);
    if (deleted.length > 0) {
      await sql`
        DELETE FROM ${sql.table(t.report_definitions)} AS cur
         USING unnest(${sql.val(deleted.map((d) => d.tenantId))}::uuid[], ${sql.val(deleted.map((d) => d.id))}::uuid[])
               AS d(tenant_id, id)
         WHERE cur.tenant_id = d.tenant_id AND cur.id = d.id`.execute(trx);
    }
  },
});
