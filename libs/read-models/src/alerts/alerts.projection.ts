import { sql } from 'kysely';
import { defineProjection } from '@renkei/projections';
import { alertConditionEventSchemas, alertEventSchemas, eventDecoder, type AlertEvaluated } from '@renkei/domain';
import { createTables, insertRows, tableNames, type WriteRow } from '../shared/table.ts';
import { alertConditionsTable, alertInstitutionsTable, alertsTable } from './alerts.tables.ts';

const decode = eventDecoder({ ...alertConditionEventSchemas, ...alertEventSchemas });
const tables = [alertConditionsTable, alertsTable, alertInstitutionsTable];

interface FoldedAlert {
  tenantId: string;
  alertId: string;
  /** The batch's last evaluation, if it has one. */
  evaluation: AlertEvaluated | null;
  evaluatedAt: Date | null;
  archived: boolean;
  revision: number;
}

/**
 * `rm.alert_conditions`, `rm.alerts` and `rm.alert_institutions`: conditions as created (deleted ones
 * removed), each alert with its last evaluation and archive flag, and that evaluation's institutions.
 * A batch folds per record and writes with a fixed number of set-based statements.
 */
export const alertsProjection = defineProjection({
  name: 'alerts',
  version: 1,
  eventTypes: decode.types,
  tables: tableNames(tables),
  setup: (trx, t) => createTables(trx, tables, t),
  async handle(trx, events, t) {
    const conditions = new Map<string, WriteRow<typeof alertConditionsTable> | null>();
    const alerts = new Map<string, FoldedAlert>();
    for (const recorded of events) {
      const event = decode(recorded);
      const tenantId = recorded.metadata.tenant_id;
      switch (event.type) {
        case 'AlertConditionCreated':
          conditions.set(`${tenantId}:${event.data.condition_id}`, {
            tenant_id: tenantId,
            id: event.data.condition_id,
            name: event.data.name,
            type: event.data.type,
            triggers: event.data.triggers,
            filters: event.data.filters,
            created_at: recorded.created_at.toISOString(),
          });
          break;
        case 'AlertConditionDeleted':
          conditions.set(`${tenantId}:${event.data.condition_id}`, null);
          break;
        case 'AlertRaised':
        case 'AlertUpdated':
        case 'AlertArchived': {
          const key = `${tenantId}:${event.data.alert_id}`;
          const prev = alerts.get(key);
          const evaluated = event.type !== 'AlertArchived';
          alerts.set(key, {
            tenantId,
            alertId: event.data.alert_id,
            evaluation: evaluated ? event.data : (prev?.evaluation ?? null),
            evaluatedAt: evaluated ? recorded.created_at : (prev?.evaluatedAt ?? null),
            archived: (prev?.archived ?? false) || event.type === 'AlertArchived',
            revision: recorded.revision,
          });
          break;
        }
        default: {
          const never: never = event;
          throw new Error(`alerts projection: unexpected event ${JSON.stringify(never)}`);
        }
      }
    }

    const deleted = [...conditions].filter(([, row]) => row === null).map(([key]) => key.split(':'));
    if (deleted.length > 0)
      await sql`
        DELETE FROM ${sql.table(t.alert_conditions)} AS cur
         USING unnest(${sql.val(deleted.map(([tenant]) => tenant!))}::uuid[], ${sql.val(deleted.map(([, id]) => id!))}::uuid[]) AS d(tenant_id, id)
         WHERE cur.tenant_id = d.tenant_id AND cur.id = d.id`.execute(trx);
    await insertRows(
      trx,
      t.alert_conditions,
      alertConditionsTable,
      [...conditions.values()].filter((row) => row !== null),
      { onConflict: sql`ON CONFLICT (tenant_id, id) DO NOTHING` },
    );

    const evaluated = [...alerts.values()].filter((a) => a.evaluation !== null);
    await insertRows(
      trx,
      t.alerts,
      alertsTable,
      evaluated.map((a) => ({
        tenant_id: a.tenantId,
        id: a.alertId,
        condition_id: a.evaluation!.condition_id,
        name: a.evaluation!.name,
        condition_summary: a.evaluation!.condition_summary,
        condition_parameters: a.evaluation!.condition_parameters,
        alert_date: a.evaluation!.alert_date,
        target_count: a.evaluation!.target_count,
        is_archived: a.archived,
        version: a.revision,
        evaluated_at: a.evaluatedAt!.toISOString(),
      })),
      {
        // An update never follows an archive (the evaluation leaves archived alerts alone), but a
        // stored archive flag is kept whatever comes.
        onConflict: sql`ON CONFLICT (tenant_id, id) DO UPDATE SET name = excluded.name,
          condition_summary = excluded.condition_summary, condition_parameters = excluded.condition_parameters,
          target_count = excluded.target_count, is_archived = ${sql.table(t.alerts)}.is_archived OR excluded.is_archived,
          version = excluded.version, evaluated_at = excluded.evaluated_at
          WHERE ${sql.table(t.alerts)}.version < excluded.version`,
      },
    );
    const archivedOnly = [...alerts.values()].filter((a) => a.evaluation === null && a.archived);
    if (archivedOnly.length > 0)
      await sql`
        UPDATE ${sql.table(t.alerts)} AS cur SET is_archived = true, version = d.revision
          FROM unnest(${sql.val(archivedOnly.map((a) => a.tenantId))}::uuid[], ${sql.val(archivedOnly.map((a) => a.alertId))}::uuid[],
                      ${sql.val(archivedOnly.map((a) => a.revision))}::int[]) AS d(tenant_id, id, revision)
         WHERE cur.tenant_id = d.tenant_id AND cur.id = d.id AND cur.version < d.revision`.execute(trx);

    if (evaluated.length > 0) {
      await sql`
        DELETE FROM ${sql.table(t.alert_institutions)} AS cur
         USING unnest(${sql.val(evaluated.map((a) => a.tenantId))}::uuid[], ${sql.val(evaluated.map((a) => a.alertId))}::uuid[]) AS d(tenant_id, id)
         WHERE cur.tenant_id = d.tenant_id AND cur.alert_id = d.id`.execute(trx);
      const rows: WriteRow<typeof alertInstitutionsTable>[] = evaluated.flatMap((a) => {
        const c = a.evaluation!.institutions;
        return c.medical_institution_ids.map((id, i) => ({
          tenant_id: a.tenantId,
          alert_id: a.alertId,
          position: i,
          medical_institution_id: id,
          referral_count: c.referral_counts[i]!,
          comparison_referral_count: c.comparison_referral_counts[i]!,
          last_visit_date: c.last_visit_dates[i] ?? null,
        }));
      });
      await insertRows(trx, t.alert_institutions, alertInstitutionsTable, rows, {
        plainJson: true,
        rowsPerStatement: 20_000,
      });
    }
  },
});
