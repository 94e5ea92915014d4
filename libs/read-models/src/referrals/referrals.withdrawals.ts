import { sql, type Transaction } from 'kysely';
import type { ProjectionTables } from '@renkei/projections';
import type { WriteRow } from '../shared/table.ts';
import type { referralFactImportsTable } from './referrals.tables.ts';
import { noDepartment, type Kind, type Patient, type RollupKey } from './referrals.keys.ts';

type T = ProjectionTables<
  'referrals' | 'reverse_referrals' | 'hospital_admissions' | 'referral_fact_imports' | 'referral_data_imports'
>;

/** A fact that went: its patient (to re-link) and its institution-month (to sum again), if it had one. */
export type LeftRow = Patient & { medical_institution_id: string | null; own_department_id: string; month: string };

/** Adds what the rows that went leave to re-link and sum, once each. */
export function noteLeft(rows: readonly LeftRow[], patients: Map<string, Patient>, keys: Map<string, RollupKey>): void {
  for (const r of rows) {
    patients.set(`${r.tenant_id}|${r.patient_key}`, { tenant_id: r.tenant_id, patient_key: r.patient_key });
    if (r.medical_institution_id)
      keys.set(`${r.tenant_id}|${r.medical_institution_id}|${r.own_department_id}|${r.month}`, {
        tenant_id: r.tenant_id,
        medical_institution_id: r.medical_institution_id,
        own_department_id: r.own_department_id,
        month: r.month,
      });
  }
}

/** One slice of a withdrawal (ReferralDataImportWithdrawn): up to `rows` rows of each kind; null: all left (its end). */
export interface WithdrawalSlice {
  tenant_id: string;
  import_id: string;
  rows: number | null;
}

/** A fact an upload met already there: that upload holds it too (see `referralFactImportsTable`). */
export type FactSource = WriteRow<typeof referralFactImportsTable>;

export async function noteFactSources(trx: Transaction<unknown>, t: T, sources: FactSource[]): Promise<void> {
  if (sources.length === 0) return;
  await sql`
    INSERT INTO ${sql.table(t.referral_fact_imports)} (tenant_id, import_id, kind, identity)
    SELECT * FROM unnest(${sql.val(sources.map((s) => s.tenant_id))}::uuid[], ${sql.val(sources.map((s) => s.import_id))}::uuid[],
                         ${sql.val(sources.map((s) => s.kind))}::text[], ${sql.val(sources.map((s) => s.identity))}::text[])
    ON CONFLICT DO NOTHING`.execute(trx);
}

/**
 * A withdrawal's request marks the record as being withdrawn (the history says so while its rows go);
 * its end marks it withdrawn (it leaves the history: the figures no longer count its rows).
 */
export async function markWithdrawals(
  trx: Transaction<unknown>,
  t: T,
  marks: { tenant_id: string; import_id: string; at: string; step: 'requested' | 'completed' }[],
): Promise<void> {
  for (const step of ['requested', 'completed'] as const) {
    const rows = marks.filter((m) => m.step === step);
    if (rows.length === 0) continue;
    const column = sql.ref(step === 'requested' ? 'withdrawal_requested_at' : 'withdrawn_at');
    await sql`
      UPDATE ${sql.table(t.referral_data_imports)} i SET ${column} = coalesce(i.${column}, w.at)
        FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS w(tenant_id uuid, import_id uuid, at timestamptz)
       WHERE i.tenant_id = w.tenant_id AND i.id = w.import_id`.execute(trx);
  }
}

/**
 * The slice's rows taken back: a fact the withdrawn upload last wrote goes unless another upload holds
 * it too, which then becomes its upload (its content stays as last written); the withdrawn upload's
 * notes of holding other facts go. Answers the patients and rollup months of the facts that went, for
 * the projection's re-link and rollups. The upload's rows are found by `(tenant_id, import_id)`, so a
 * slice costs its own rows, not the tenant's (a rows hash scanned every row of the tenant per slice).
 */
export async function applyWithdrawal(
  trx: Transaction<unknown>,
  t: T,
  s: WithdrawalSlice,
): Promise<{ patients: Patient[]; keys: RollupKey[] }> {
  const patients = new Map<string, Patient>();
  const keys = new Map<string, RollupKey>();
  const tables: Record<Kind, { table: string; date: string; institution: boolean }> = {
    referral: { table: t.referrals, date: 'referral_date', institution: true },
    reverse: { table: t.reverse_referrals, date: 'reverse_referral_date', institution: true },
    admission: { table: t.hospital_admissions, date: '', institution: false },
  };
  const limit = s.rows === null ? sql`` : sql`LIMIT ${s.rows}`;
  for (const kind of ['referral', 'reverse', 'admission'] as const) {
    const { table, date, institution } = tables[kind];
    const { rows } = await sql<LeftRow>`
        WITH own AS (
          SELECT c.identity FROM ${sql.table(table)} c
           WHERE c.tenant_id = ${s.tenant_id} AND c.import_id = ${s.import_id} ${limit}),
        heir AS (
          SELECT DISTINCT ON (o.identity) o.identity, f.import_id
            FROM own o JOIN ${sql.table(t.referral_fact_imports)} f
              ON f.tenant_id = ${s.tenant_id} AND f.kind = ${kind} AND f.identity = o.identity AND f.import_id <> ${s.import_id}
           ORDER BY o.identity, f.import_id),
        kept AS (
          UPDATE ${sql.table(table)} c SET import_id = h.import_id FROM heir h
           WHERE c.tenant_id = ${s.tenant_id} AND c.identity = h.identity
          RETURNING c.identity)
        ${
          institution
            ? sql`DELETE FROM ${sql.table(table)} c USING own o
                   WHERE c.tenant_id = ${s.tenant_id} AND c.identity = o.identity
                     AND NOT EXISTS (SELECT 1 FROM heir h WHERE h.identity = o.identity)
                  RETURNING c.tenant_id::text AS tenant_id, c.patient_key, c.medical_institution_id::text AS medical_institution_id,
                            coalesce(c.own_department_id, ${noDepartment}::uuid)::text AS own_department_id,
                            to_char(date_trunc('month', c.${sql.ref(date)}), 'YYYY-MM-DD') AS month`
            : // A stay that goes leaves the month of the referral it followed (the re-link sees no stay to move).
              sql`, gone AS (
                  DELETE FROM ${sql.table(table)} c USING own o
                   WHERE c.tenant_id = ${s.tenant_id} AND c.identity = o.identity
                     AND NOT EXISTS (SELECT 1 FROM heir h WHERE h.identity = o.identity)
                  RETURNING c.tenant_id, c.patient_key, c.referral_id)
                SELECT g.tenant_id::text AS tenant_id, g.patient_key, r.medical_institution_id::text AS medical_institution_id,
                       coalesce(r.own_department_id, ${noDepartment}::uuid)::text AS own_department_id,
                       to_char(date_trunc('month', r.referral_date), 'YYYY-MM-DD') AS month
                  FROM gone g LEFT JOIN ${sql.table(t.referrals)} r ON r.tenant_id = g.tenant_id AND r.id = g.referral_id`
        }`.execute(trx);
    noteLeft(rows, patients, keys);
  }
  await sql`
      DELETE FROM ${sql.table(t.referral_fact_imports)} f
       WHERE f.ctid IN (SELECT ctid FROM ${sql.table(t.referral_fact_imports)}
                         WHERE tenant_id = ${s.tenant_id} AND import_id = ${s.import_id} ${limit})`.execute(trx);
  return { patients: [...patients.values()], keys: [...keys.values()] };
}
