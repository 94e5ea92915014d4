import { sql, type Kysely } from 'kysely';
import type { HospitalAdmission, ListedReverseReferral, Referral } from '@renkei/contracts';
import type { ReadModels } from '@renkei/read-models';
import { admissionDepartment, dpcGroupName } from './admission-names.ts';

interface ReferralRow {
  id: string;
  referral_date: string;
  patient_id: string;
  patient_key: string;
  medical_institution_id: string;
  to_doctor: string | null;
  from_doctor: string | null;
  purpose: string | null;
  own_department_id: string | null;
  own_department_name: string | null;
  reverse_id: string | null;
  reverse_date: string | null;
  entered_by_hand: boolean;
  from_department: string | null;
  to_department: string | null;
  first_visit: boolean | null;
}

interface AdmissionRow {
  id: string;
  referral_id: string;
  admission_date: string;
  discharge_date: string | null;
  department_code: string | null;
  icd10_code: string | null;
  icd10_name: string | null;
  kcode: string | null;
  operation_name: string | null;
  operation_date: string | null;
  dpc_code: string | null;
  dpc_name: string | null;
  scores: Record<string, string[]>;
  anesthesia: string | null;
  admission_route_code: string | null;
  discharge_destination_code: string | null;
  discharge_outcome_code: string | null;
}

/** 様式1 score payloads are codes written as text: the first payload as a number where it is one. */
function scoreValues(scores: Record<string, string[]>): Record<string, number | null> {
  return Object.fromEntries(
    Object.entries(scores).map(([name, values]) => {
      const n = Number(values[0]);
      return [name, values[0] !== undefined && values[0] !== '' && Number.isFinite(n) ? n : null];
    }),
  );
}

function toAdmission(a: AdmissionRow): HospitalAdmission {
  return {
    id: a.id,
    admission_date: a.admission_date,
    discharge_date: a.discharge_date,
    // The files carry codes; the page needs names (the code stays beside the name).
    department: admissionDepartment(a.department_code),
    icd10_code: a.icd10_code,
    icd10_name: a.icd10_name,
    kcode: a.kcode,
    operation_name: a.operation_name,
    operation_date: a.operation_date,
    dpc_code: a.dpc_code,
    dpc_name: a.dpc_name ?? dpcGroupName(a.dpc_code),
    scores: scoreValues(a.scores),
    anesthesia_type: a.anesthesia,
    admission_route_code: a.admission_route_code,
    discharge_destination_code: a.discharge_destination_code,
    discharge_outcome_code: a.discharge_outcome_code,
  };
}

/**
 * An institution's referrals, newest first, each with the stays that followed it (the projection's
 * join) and its reverse referral: the first one of the same patient to the same institution on or
 * after the referral date.
 */
export async function listInstitutionReferrals(
  db: Kysely<ReadModels>,
  tenantId: string,
  institutionId: string,
  page: number,
  perPage: number,
): Promise<{ total: number; data: Referral[] }> {
  const { total, data } = await institutionReferralRows(db, tenantId, institutionId, page, perPage);
  return { total, data: data.map(({ file: _file, ...referral }) => referral) };
}

/**
 * What the list file said beside the contract's fields, for the export: the referring department, the
 * department as written (kept when it is none of the own departments) and 初診.
 */
export interface ReferralFileColumns {
  from_department: string | null;
  to_department: string | null;
  first_visit: boolean | null;
}

/** The institution's referrals as listInstitutionReferrals answers them, each with what its file said. */
export async function institutionReferralRows(
  db: Kysely<ReadModels>,
  tenantId: string,
  institutionId: string,
  page: number,
  perPage: number,
): Promise<{ total: number; data: (Referral & { file: ReferralFileColumns })[] }> {
  const [counted, rows] = await Promise.all([
    sql<{
      n: number;
    }>`SELECT count(*)::int AS n FROM rm.referrals WHERE tenant_id = ${tenantId} AND medical_institution_id = ${institutionId}`.execute(
      db,
    ),
    sql<ReferralRow>`
      SELECT r.id, to_char(r.referral_date, 'YYYY-MM-DD') AS referral_date, r.patient_id, r.patient_key, r.medical_institution_id,
             r.to_doctor, r.from_doctor, r.purpose, r.own_department_id, d.name AS own_department_name,
             v.id AS reverse_id, to_char(v.reverse_referral_date, 'YYYY-MM-DD') AS reverse_date,
             starts_with(r.identity, 'manual:') AS entered_by_hand, r.from_department, r.to_department, r.first_visit
        FROM rm.referrals r
        LEFT JOIN rm.own_departments d ON d.tenant_id = r.tenant_id AND d.id = r.own_department_id
        LEFT JOIN LATERAL (
          SELECT v.id, v.reverse_referral_date FROM rm.reverse_referrals v
           WHERE v.tenant_id = r.tenant_id AND v.patient_key = r.patient_key
             AND v.medical_institution_id = r.medical_institution_id AND v.reverse_referral_date >= r.referral_date
           ORDER BY v.reverse_referral_date, v.id LIMIT 1) v ON true
       WHERE r.tenant_id = ${tenantId} AND r.medical_institution_id = ${institutionId}
       ORDER BY r.referral_date DESC, r.id DESC
       LIMIT ${perPage} OFFSET ${(page - 1) * perPage}`.execute(db),
  ]);
  const ids = rows.rows.map((r) => r.id);
  const admissions =
    ids.length === 0
      ? []
      : (
          await sql<AdmissionRow>`
            SELECT id, referral_id, to_char(admission_date, 'YYYY-MM-DD') AS admission_date,
                   to_char(discharge_date, 'YYYY-MM-DD') AS discharge_date, department_code, icd10_code, icd10_name,
                   kcode, operation_name, to_char(operation_date, 'YYYY-MM-DD') AS operation_date, dpc_code, dpc_name,
                   scores, anesthesia, admission_route_code, discharge_destination_code, discharge_outcome_code
              FROM rm.hospital_admissions
             WHERE tenant_id = ${tenantId} AND referral_id = ANY(${sql.val(ids)}::uuid[])
             ORDER BY admission_date`.execute(db)
        ).rows;
  return {
    total: counted.rows[0]?.n ?? 0,
    data: rows.rows.map((r) => ({
      id: r.id,
      referral_date: r.referral_date,
      patient_id: r.patient_id,
      doctor_name_to: r.to_doctor,
      doctor_name_from: r.from_doctor,
      reason_for_presenting: r.purpose,
      referral_department:
        r.own_department_id && r.own_department_name ? { id: r.own_department_id, name: r.own_department_name } : null,
      referral_department_as_written: r.own_department_id ? null : (r.to_department ?? null),
      hospital_admissions: admissions.filter((a) => a.referral_id === r.id).map(toAdmission),
      reverse_referral:
        r.reverse_id && r.reverse_date ? { id: r.reverse_id, reverse_referral_date: r.reverse_date } : null,
      entered_by_hand: r.entered_by_hand,
      file: { from_department: r.from_department, to_department: r.to_department, first_visit: r.first_visit },
    })),
  };
}

/** The first or last referral from each of the institutions (optionally into some own departments). */
export async function referralMarks(
  db: Kysely<ReadModels>,
  tenantId: string,
  institutionIds: string[],
  departmentIds: string[] | undefined,
  which: 'first' | 'last',
) {
  if (institutionIds.length === 0) return [];
  const order = which === 'first' ? sql`r.referral_date, r.id` : sql`r.referral_date DESC, r.id DESC`;
  const { rows } = await sql<{
    id: string;
    referral_date: string;
    medical_institution_id: string;
    first_visit: boolean | null;
  }>`
    SELECT DISTINCT ON (r.medical_institution_id) r.id, to_char(r.referral_date, 'YYYY-MM-DD') AS referral_date,
           r.medical_institution_id, r.first_visit
      FROM rm.referrals r
     WHERE r.tenant_id = ${tenantId} AND r.medical_institution_id = ANY(${sql.val(institutionIds)}::uuid[])
       AND (${departmentIds === undefined} OR r.own_department_id = ANY(${sql.val(departmentIds ?? [])}::uuid[]))
     ORDER BY r.medical_institution_id, ${order}`.execute(db);
  return rows.map((r) => ({
    id: r.id,
    referral_date: r.referral_date,
    medical_institution_id: r.medical_institution_id,
    medical_institution_id_to: null,
    first_visit_flag: r.first_visit === true,
  }));
}

/** The last reverse referral to each of the institutions. */
export async function lastReverseReferrals(
  db: Kysely<ReadModels>,
  tenantId: string,
  institutionIds: string[],
  departmentIds: string[] | undefined,
) {
  if (institutionIds.length === 0) return [];
  const { rows } = await sql<{ id: string; reverse_referral_date: string; medical_institution_id_to: string }>`
    SELECT DISTINCT ON (v.medical_institution_id) v.id, to_char(v.reverse_referral_date, 'YYYY-MM-DD') AS reverse_referral_date,
           v.medical_institution_id AS medical_institution_id_to
      FROM rm.reverse_referrals v
     WHERE v.tenant_id = ${tenantId} AND v.medical_institution_id = ANY(${sql.val(institutionIds)}::uuid[])
       AND (${departmentIds === undefined} OR v.own_department_id = ANY(${sql.val(departmentIds ?? [])}::uuid[]))
     ORDER BY v.medical_institution_id, v.reverse_referral_date DESC, v.id DESC`.execute(db);
  return rows;
}

/**
 * The reverse referrals to an institution, newest first, with the own department's name; hand
 * entries (identity `manual:<id>`) are marked so the page offers to correct or withdraw them.
 */
export async function listInstitutionReverseReferrals(
  db: Kysely<ReadModels>,
  tenantId: string,
  institutionId: string,
  page: number,
  perPage: number,
): Promise<{ total: number; data: ListedReverseReferral[] }> {
  const [counted, rows] = await Promise.all([
    sql<{ n: number }>`
      SELECT count(*)::int AS n FROM rm.reverse_referrals
       WHERE tenant_id = ${tenantId} AND medical_institution_id = ${institutionId}`.execute(db),
    sql<{
      id: string;
      reverse_referral_date: string;
      patient_id: string;
      own_department_id: string | null;
      own_department_name: string | null;
      source_id: string | null;
      import_id: string;
      entered_by_hand: boolean;
    }>`
      SELECT v.id, to_char(v.reverse_referral_date, 'YYYY-MM-DD') AS reverse_referral_date, v.patient_id,
             v.own_department_id, d.name AS own_department_name, v.source_id, v.import_id,
             starts_with(v.identity, 'manual:') AS entered_by_hand
        FROM rm.reverse_referrals v
        LEFT JOIN rm.own_departments d ON d.tenant_id = v.tenant_id AND d.id = v.own_department_id
       WHERE v.tenant_id = ${tenantId} AND v.medical_institution_id = ${institutionId}
       ORDER BY v.reverse_referral_date DESC, v.id DESC
       LIMIT ${perPage} OFFSET ${(page - 1) * perPage}`.execute(db),
  ]);
  return {
    total: counted.rows[0]?.n ?? 0,
    data: rows.rows.map((v) => ({
      id: v.id,
      // Sent back from the tenant's own hospital: the list has no other sender.
      medical_institution_id_from: null,
      medical_institution_id_to: institutionId,
      specialty_id: v.own_department_id,
      specialty:
        v.own_department_id && v.own_department_name ? { id: v.own_department_id, name: v.own_department_name } : null,
      reverse_referral_date: v.reverse_referral_date,
      patient_id: v.patient_id,
      control_id: v.source_id,
      importing_log_id: v.entered_by_hand ? null : v.import_id,
      entered_by_hand: v.entered_by_hand,
    })),
  };
}
