import { column, defineTable, type KyselyTables } from '../shared/table.ts';

/**
 * The fields of each live visit (visit and new_visit) the charts count, one narrow row per record:
 * the daily rollups are summed again from here, and calls filtered by institution read it directly.
 */
export const visitSourcesTable = defineTable({
  name: 'visit_sources',
  columns: {
    tenant_id: column.uuid(),
    communication_id: column.uuid(),
    medical_institution_id: column.uuid(),
    user_id: column.uuid(),
    communication_type: column.text<'visit' | 'new_visit'>(),
    acted_date: column.date(),
    is_doctor_attended: column.boolean(),
    /** Whether a live task links to it (from `visit_task_links`, refreshed for every record a batch touches). */
    has_next_action: column.boolean().default('false'),
    /** Revision of the last record event applied: a replayed older save never wins. */
    revision: column.int(),
  },
  primaryKey: ['tenant_id', 'communication_id'],
  indexes: [
    ['tenant_id', 'acted_date', 'user_id'],
    ['tenant_id', 'medical_institution_id', 'acted_date'],
  ],
});

/**
 * Every live task linked to a communication (any type: an edit may turn a call into a visit). A visit
 * with at least one is a visit that produced a next action.
 */
export const visitTaskLinksTable = defineTable({
  name: 'visit_task_links',
  columns: {
    tenant_id: column.uuid(),
    task_id: column.uuid(),
    communication_id: column.uuid(),
  },
  primaryKey: ['tenant_id', 'task_id'],
  indexes: [['tenant_id', 'communication_id']],
});

const counts = {
  visit_count: column.int(),
  /** Visits where a doctor was met (`is_doctor_attended`). */
  doctor_interview_count: column.int(),
  /** Visits with at least one linked task. */
  next_action_count: column.int(),
};

/** Per tenant, day, staff member and visit type. */
export const visitDailyRollupsTable = defineTable({
  name: 'visit_daily_rollups',
  columns: {
    tenant_id: column.uuid(),
    acted_date: column.date(),
    user_id: column.uuid(),
    communication_type: column.text<'visit' | 'new_visit'>(),
    ...counts,
  },
  primaryKey: ['tenant_id', 'acted_date', 'user_id', 'communication_type'],
});

/**
 * The daily rows summed over staff members: a chart without a staff filter reads one row per day and
 * type (a 年度 by week: ~730 rows instead of ~14,000 day × staff × type rows).
 */
export const visitTenantDailyRollupsTable = defineTable({
  name: 'visit_tenant_daily_rollups',
  columns: {
    tenant_id: column.uuid(),
    acted_date: column.date(),
    communication_type: column.text<'visit' | 'new_visit'>(),
    ...counts,
  },
  primaryKey: ['tenant_id', 'acted_date', 'communication_type'],
});

/** The daily rows summed per calendar month (`month` is its first day): whole months of a period read these. */
export const visitMonthlyRollupsTable = defineTable({
  name: 'visit_monthly_rollups',
  columns: {
    tenant_id: column.uuid(),
    month: column.date(),
    user_id: column.uuid(),
    communication_type: column.text<'visit' | 'new_visit'>(),
    ...counts,
  },
  primaryKey: ['tenant_id', 'month', 'user_id', 'communication_type'],
});

/** The per-tenant days summed per calendar month: whole months of a chart without a staff filter. */
export const visitTenantMonthlyRollupsTable = defineTable({
  name: 'visit_tenant_monthly_rollups',
  columns: {
    tenant_id: column.uuid(),
    month: column.date(),
    communication_type: column.text<'visit' | 'new_visit'>(),
    ...counts,
  },
  primaryKey: ['tenant_id', 'month', 'communication_type'],
});

export { noFacilityType, noPrefecture } from '../shared/master-attributes.ts';

/**
 * Visits per tenant, month, type and the institution's facility type and prefecture as the institution
 * master had them when summed: a chart filtered by facility type or prefecture reads whole months here
 * instead of each visit joined to the master. Valid only while `visit_attribute_bases` says the master
 * has not been synced since (the charts fall back to the per-visit rows otherwise).
 */
export const visitAttributeMonthlyRollupsTable = defineTable({
  name: 'visit_attribute_monthly_rollups',
  columns: {
    tenant_id: column.uuid(),
    month: column.date(),
    communication_type: column.text<'visit' | 'new_visit'>(),
    /** The master's `facility_type_id`, `noFacilityType` where it has none. */
    facility_type_id: column.int(),
    /** The master's `prefecture_code`, `noPrefecture` where it has none. */
    prefecture_code: column.int(),
    ...counts,
  },
  primaryKey: ['tenant_id', 'communication_type', 'month', 'facility_type_id', 'prefecture_code'],
});

/**
 * Per tenant, the number of institution-master sync runs (`ref.sync_runs`) there were when its attribute
 * rollups were summed; null while a sync was running then (or the master was missing). A sync writes its
 * run row before any master row, so a run count that has moved on since says the rollups may be stale.
 */
export const visitAttributeBasesTable = defineTable({
  name: 'visit_attribute_bases',
  columns: {
    tenant_id: column.uuid(),
    master_runs: column.int().nullable(),
  },
  primaryKey: ['tenant_id'],
});

export type VisitRollupsTables = KyselyTables<
  | typeof visitSourcesTable
  | typeof visitTaskLinksTable
  | typeof visitDailyRollupsTable
  | typeof visitTenantDailyRollupsTable
  | typeof visitMonthlyRollupsTable
  | typeof visitTenantMonthlyRollupsTable
  | typeof visitAttributeMonthlyRollupsTable
  | typeof visitAttributeBasesTable
>;
