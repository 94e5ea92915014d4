import type { AlertConditionCreated } from '@renkei/domain';
import { column, defineTable, type KyselyTables } from '../shared/table.ts';

type AlertTriggers = AlertConditionCreated['triggers'];
type AlertFilters = AlertConditionCreated['filters'];

/** One row per live alert condition of every tenant (a deleted one is removed). */
export const alertConditionsTable = defineTable({
  name: 'alert_conditions',
  columns: {
    tenant_id: column.uuid(),
    id: column.uuid(),
    name: column.text(),
    type: column.text<'referral' | 'communication'>(),
    triggers: column.jsonb<AlertTriggers>(),
    filters: column.jsonb<AlertFilters>(),
    created_at: column.timestamptz(),
  },
  primaryKey: ['tenant_id', 'id'],
  indexes: [['tenant_id', 'created_at DESC', 'id']],
});

/** One row per alert (condition × evaluated month), open or archived. */
export const alertsTable = defineTable({
  name: 'alerts',
  columns: {
    tenant_id: column.uuid(),
    id: column.uuid(),
    condition_id: column.uuid(),
    name: column.text(),
    condition_summary: column.text(),
    condition_parameters: column.jsonb<{ triggers: AlertTriggers; filters: AlertFilters }>(),
    /** The first day of the evaluated month. */
    alert_date: column.date(),
    target_count: column.int(),
    is_archived: column.boolean(),
    /** The stream's revision (replays never go backwards). */
    version: column.int(),
    evaluated_at: column.timestamptz(),
  },
  primaryKey: ['tenant_id', 'id'],
  indexes: [['tenant_id', 'is_archived', 'alert_date DESC', 'id']],
});

/** The institutions of an alert's last evaluation, in the evaluation's order (`position`), with their figures. */
export const alertInstitutionsTable = defineTable({
  name: 'alert_institutions',
  columns: {
    tenant_id: column.uuid(),
    alert_id: column.uuid(),
    position: column.int(),
    medical_institution_id: column.uuid(),
    referral_count: column.int(),
    comparison_referral_count: column.int(),
    last_visit_date: column.date().nullable(),
  },
  primaryKey: ['tenant_id', 'alert_id', 'position'],
});

export type AlertsTables = KyselyTables<
  typeof alertConditionsTable | typeof alertsTable | typeof alertInstitutionsTable
>;
