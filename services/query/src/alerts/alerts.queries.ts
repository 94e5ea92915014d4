import { sql, type Kysely } from 'kysely';
import type { Alert, AlertCondition, AlertFilters, AlertMedicalInstitution, AlertTriggers } from '@renkei/contracts';
import { alertConditionInvalid, type ReadModels } from '@renkei/read-models';

interface Page {
  page: number;
  per_page: number;
}

const meta = (total: number, p: Page) => ({
  total_count: total,
  page: p.page,
  per_page: p.per_page,
  total_pages: Math.ceil(total / p.per_page),
});

interface AlertRow {
  id: string;
  name: string;
  condition_summary: string;
  condition_parameters: { triggers: AlertTriggers; filters: AlertFilters };
  alert_date: string;
  target_count: number;
  is_archived: boolean;
}

const alertColumns = sql`a.id, a.name, a.condition_summary, a.condition_parameters,
  to_char(a.alert_date, 'YYYY-MM-DD') AS alert_date, a.target_count, a.is_archived`;

const toAlert = (r: AlertRow): Alert => ({ ...r });

/** The tenant's alerts of one status, newest month first, then by name. */
export async function listAlerts(db: Kysely<ReadModels>, tenantId: string, q: Page & { status: 'open' | 'archived' }) {
  const archived = q.status === 'archived';
  const [rows, counted] = await Promise.all([
    sql<AlertRow>`SELECT ${alertColumns} FROM rm.alerts a
      WHERE a.tenant_id = ${tenantId} AND a.is_archived = ${archived}
      ORDER BY a.alert_date DESC, a.name, a.id
      LIMIT ${q.per_page} OFFSET ${(q.page - 1) * q.per_page}`.execute(db),
    sql<{ n: number }>`SELECT count(*)::int AS n FROM rm.alerts a
      WHERE a.tenant_id = ${tenantId} AND a.is_archived = ${archived}`.execute(db),
  ]);
  return { data: rows.rows.map(toAlert), meta: meta(counted.rows[0]?.n ?? 0, q) };
}

/** One alert of the tenant; null for an unknown id or another tenant's. */
export async function getAlert(db: Kysely<ReadModels>, tenantId: string, id: string): Promise<Alert | null> {
  const { rows } = await sql<AlertRow>`SELECT ${alertColumns} FROM rm.alerts a
    WHERE a.tenant_id = ${tenantId} AND a.id = ${id}`.execute(db);
  return rows[0] ? toAlert(rows[0]) : null;
}

/**
 * The institutions of an alert in the evaluation's order, with the figures of that evaluation; name and
 * address from the master as they are now. Null when the alert is not the tenant's.
 */
export async function listAlertInstitutions(db: Kysely<ReadModels>, tenantId: string, alertId: string, q: Page) {
  const alert = await getAlert(db, tenantId, alertId);
  if (!alert) return null;
  const { rows } = await sql<{
    id: string;
    name: string | null;
    address: string | null;
    referral_count: number;
    comparison_referral_count: number;
    last_visit_date: string | null;
  }>`SELECT i.medical_institution_id AS id, m.name, m.address, i.referral_count, i.comparison_referral_count,
            to_char(i.last_visit_date, 'YYYY-MM-DD') AS last_visit_date
       FROM rm.alert_institutions i LEFT JOIN ref.medical_institutions m ON m.id = i.medical_institution_id
      WHERE i.tenant_id = ${tenantId} AND i.alert_id = ${alertId}
      ORDER BY i.position
      LIMIT ${q.per_page} OFFSET ${(q.page - 1) * q.per_page}`.execute(db);
  const data: AlertMedicalInstitution[] = rows.map((r) => ({
    id: r.id,
    name: r.name ?? '',
    address: r.address ?? '',
    referral_count: r.referral_count,
    comparison_referral_count: r.comparison_referral_count,
    // As the partner search: the change over the month before, null when that month had none.
    rate_of_referral_change:
      r.comparison_referral_count > 0
        ? (r.referral_count - r.comparison_referral_count) / r.comparison_referral_count
        : null,
    last_visit_date: r.last_visit_date,
  }));
  return { data, meta: meta(alert.target_count, q) };
}

/** The tenant's alert conditions, newest first, each saying whether a tag or area it names is gone. */
export async function listAlertConditions(db: Kysely<ReadModels>, tenantId: string, q: Page) {
  const [rows, counted] = await Promise.all([
    sql<Omit<AlertCondition, 'created_date'> & { created_at: Date }>`
      SELECT c.id, c.name, c.type, c.triggers, c.filters, c.created_at, ${alertConditionInvalid('c')} AS has_invalid
        FROM rm.alert_conditions c
       WHERE c.tenant_id = ${tenantId}
       ORDER BY c.created_at DESC, c.id
       LIMIT ${q.per_page} OFFSET ${(q.page - 1) * q.per_page}`.execute(db),
    sql<{ n: number }>`SELECT count(*)::int AS n FROM rm.alert_conditions WHERE tenant_id = ${tenantId}`.execute(db),
  ]);
  const data: AlertCondition[] = rows.rows.map(({ created_at, ...c }) => ({
    ...c,
    created_date: new Date(created_at).toISOString(),
  }));
  return { data, meta: meta(counted.rows[0]?.n ?? 0, q) };
}
