import { sql, type Transaction } from 'kysely';
import type { OutpatientVisitFact, StayClaimFact, StayProcedureFact } from '@renkei/domain';

/**
 * D and EF facts of the referrals projection (docs/decisions.md, "D and EF files"). They are kept in
 * their own tables whichever file arrives first, and merged into the FF1 stays of the same 施設コード,
 * patient and admission day: operations from FF1 A007010 when the stay has one, else the EF's first
 * (データ区分 50); anesthesia from FF1 A007010 P6, else the EF's データ区分 54 of that operation's day (else
 * its first); DPC code from D; discharge date and department from FF1, else from D/EF. Re-uploads upsert
 * by identity, so nothing doubles; a stay's "operated" is a yes/no of its merged K code.
 */
interface Tables {
  hospital_admissions: string;
  dpc_stay_claims: string;
  dpc_stay_procedures: string;
  outpatient_visits: string;
}

export interface DpcFactsInput {
  tenantId: string;
  importId: string;
  stays: StayClaimFact[];
  procedures: StayProcedureFact[];
  visits: OutpatientVisitFact[];
}

/** A stay as D and EF name it: no 回数管理番号. */
export interface StayDayKey {
  tenant_id: string;
  patient_key: string;
  admission_date: string;
  facility_code: string;
}

export type RecordCounts = (
  tenantId: string,
  importId: string,
  counts: { new: number; updated: number; unchanged: number },
) => void;

const dayKey = (k: StayDayKey) => `${k.tenant_id}|${k.patient_key}|${k.admission_date}|${k.facility_code}`;

type ClaimRow = StayDayKey &
  Omit<StayClaimFact, 'source' | keyof Omit<StayDayKey, 'tenant_id'>> & { import_id: string };

/** Two claims of one stay: a later discharge date wins, the first department stays, the latest 算定 period's DPC code wins. */
function combineClaims(cur: ClaimRow, next: ClaimRow): ClaimRow {
  const dpcWins =
    next.dpc_code !== null && (cur.dpc_code === null || (next.dpc_period_end ?? '') >= (cur.dpc_period_end ?? ''));
  const combined = {
    ...cur,
    discharge_date: next.discharge_date ?? cur.discharge_date,
    department_code: cur.department_code ?? next.department_code,
    dpc_code: dpcWins ? next.dpc_code : cur.dpc_code,
    dpc_period_end: dpcWins ? next.dpc_period_end : cur.dpc_period_end,
  };
  // The import that brought the claim keeps it unless a later one changes it (then that one counts it).
  const same =
    combined.discharge_date === cur.discharge_date &&
    combined.department_code === cur.department_code &&
    combined.dpc_code === cur.dpc_code &&
    combined.dpc_period_end === cur.dpc_period_end;
  return same ? combined : { ...combined, import_id: next.import_id };
}

/** Counts per import from the rows an upsert wrote (`inserted`: new), the rest of its facts being already present. */
function countWritten(
  given: Map<string, number>,
  written: { tenant_id: string; import_id: string; inserted: boolean }[],
  record: RecordCounts,
) {
  const tally = new Map<string, { new: number; updated: number }>();
  for (const r of written) {
    const k = `${r.tenant_id}|${r.import_id}`;
    const c = tally.get(k) ?? { new: 0, updated: 0 };
    if (r.inserted) c.new++;
    else c.updated++;
    tally.set(k, c);
  }
  for (const [k, total] of given) {
    const [tenantId, importId] = k.split('|') as [string, string];
    const c = tally.get(k) ?? { new: 0, updated: 0 };
    record(tenantId, importId, { ...c, unchanged: Math.max(total - c.new - c.updated, 0) });
  }
}

/**
 * Writes a batch's D/EF facts and merges them into the stays they name. Returns the patients whose
 * stays changed: their referrals' rollups are to be recomputed (operated, case mix).
 */
export async function applyDpcFacts(
  trx: Transaction<unknown>,
  t: Tables,
  inputs: DpcFactsInput[],
  record: RecordCounts,
): Promise<{ tenant_id: string; patient_key: string }[]> {
  const given = new Map<string, number>();
  const claims = new Map<string, ClaimRow>();
  const procedures = new Map<string, StayProcedureFact & { tenant_id: string; import_id: string }>();
  const visits = new Map<string, OutpatientVisitFact & { tenant_id: string; import_id: string }>();
  for (const input of inputs) {
    const k = `${input.tenantId}|${input.importId}`;
    given.set(k, (given.get(k) ?? 0) + input.stays.length + input.procedures.length + input.visits.length);
    for (const { source: _source, ...claim } of input.stays) {
      const row: ClaimRow = { ...claim, tenant_id: input.tenantId, import_id: input.importId };
      const key = dayKey(row);
      const cur = claims.get(key);
      claims.set(key, cur ? combineClaims(cur, row) : row);
    }
    // A fact repeated in the batch counts for the import that brought it first, unless a later one changes it.
    for (const p of input.procedures) {
      const k = `${input.tenantId}|${p.identity}`;
      if (procedures.get(k)?.name !== p.name)
        procedures.set(k, { ...p, tenant_id: input.tenantId, import_id: input.importId });
    }
    for (const v of input.visits) {
      const k = `${input.tenantId}|${v.patient_key}|${v.visit_date}|${v.facility_code}`;
      const cur = visits.get(k);
      if (!cur || (v.department_code !== null && v.department_code !== cur.department_code))
        visits.set(k, { ...v, tenant_id: input.tenantId, import_id: input.importId });
    }
  }

  type Written = StayDayKey & { import_id: string; inserted: boolean };
  const written: Written[] = [];
  if (claims.size > 0) {
    const dpcWins = sql`excluded.dpc_code IS NOT NULL AND (cur.dpc_code IS NULL
      OR coalesce(excluded.dpc_period_end, '-infinity'::date) >= coalesce(cur.dpc_period_end, '-infinity'::date))`;
    const { rows } = await sql<Written>`
      INSERT INTO ${sql.table(t.dpc_stay_claims)} AS cur
        (tenant_id, patient_key, admission_date, facility_code, discharge_date, department_code, dpc_code, dpc_period_end, import_id)
      SELECT tenant_id, patient_key, admission_date, facility_code, discharge_date, department_code, dpc_code, dpc_period_end, import_id
        FROM jsonb_to_recordset(${JSON.stringify([...claims.values()])}::jsonb) AS r(tenant_id uuid, patient_key text,
          admission_date date, facility_code text, discharge_date date, department_code text, dpc_code text,
          dpc_period_end date, import_id uuid)
      ON CONFLICT (tenant_id, patient_key, admission_date, facility_code) DO UPDATE SET
        discharge_date = coalesce(excluded.discharge_date, cur.discharge_date),
        department_code = coalesce(cur.department_code, excluded.department_code),
        dpc_code = CASE WHEN ${dpcWins} THEN excluded.dpc_code ELSE cur.dpc_code END,
        dpc_period_end = CASE WHEN ${dpcWins} THEN excluded.dpc_period_end ELSE cur.dpc_period_end END,
        import_id = excluded.import_id
      WHERE (coalesce(excluded.discharge_date, cur.discharge_date), coalesce(cur.department_code, excluded.department_code),
             CASE WHEN ${dpcWins} THEN excluded.dpc_code ELSE cur.dpc_code END,
             CASE WHEN ${dpcWins} THEN excluded.dpc_period_end ELSE cur.dpc_period_end END)
            IS DISTINCT FROM (cur.discharge_date, cur.department_code, cur.dpc_code, cur.dpc_period_end)
      RETURNING tenant_id, patient_key, to_char(admission_date, 'YYYY-MM-DD') AS admission_date, facility_code, import_id,
                (xmax = 0) AS inserted`.execute(trx);
    written.push(...rows);
  }
  if (procedures.size > 0) {
    const { rows } = await sql<Written>`
      INSERT INTO ${sql.table(t.dpc_stay_procedures)} AS cur
        (tenant_id, identity, patient_key, admission_date, facility_code, kind, procedure_date, code, name, import_id)
      SELECT tenant_id, identity, patient_key, admission_date, facility_code, kind, date, code, name, import_id
        FROM jsonb_to_recordset(${JSON.stringify([...procedures.values()])}::jsonb) AS r(tenant_id uuid, identity text,
          patient_key text, admission_date date, facility_code text, kind text, date date, code text, name text, import_id uuid)
      ON CONFLICT (tenant_id, identity) DO UPDATE SET name = excluded.name, import_id = excluded.import_id
      WHERE cur.name IS DISTINCT FROM excluded.name
      RETURNING tenant_id, patient_key, to_char(admission_date, 'YYYY-MM-DD') AS admission_date, facility_code, import_id,
                (xmax = 0) AS inserted`.execute(trx);
    written.push(...rows);
  }
  const visited: { tenant_id: string; import_id: string; inserted: boolean }[] = [];
  if (visits.size > 0) {
    const { rows } = await sql<{ tenant_id: string; import_id: string; inserted: boolean }>`
      INSERT INTO ${sql.table(t.outpatient_visits)} AS cur (tenant_id, patient_key, visit_date, facility_code, department_code, import_id)
      SELECT tenant_id, patient_key, visit_date, facility_code, department_code, import_id
        FROM jsonb_to_recordset(${JSON.stringify([...visits.values()])}::jsonb) AS r(tenant_id uuid, patient_key text,
          visit_date date, facility_code text, department_code text, import_id uuid)
      ON CONFLICT (tenant_id, patient_key, visit_date, facility_code) DO UPDATE SET
        department_code = coalesce(excluded.department_code, cur.department_code), import_id = excluded.import_id
      WHERE coalesce(excluded.department_code, cur.department_code) IS DISTINCT FROM cur.department_code
      RETURNING tenant_id, import_id, (xmax = 0) AS inserted`.execute(trx);
    visited.push(...rows);
  }
  countWritten(given, [...written, ...visited], record);
  if (written.length === 0) return [];
  return mergeDpcFactsIntoStays(trx, t, written);
}

/**
 * Sets the merged columns of the FF1 stays of these days from their FF1 abstract (`content`) and the
 * D/EF facts kept. Only the stay with the lowest 回数管理番号 of a day takes D/EF facts (they carry none);
 * the others keep their FF1 values. Returns the patients whose stays changed.
 */
export async function mergeDpcFactsIntoStays(
  trx: Transaction<unknown>,
  t: Pick<Tables, 'hospital_admissions' | 'dpc_stay_claims' | 'dpc_stay_procedures'>,
  days: StayDayKey[],
): Promise<{ tenant_id: string; patient_key: string }[]> {
  if (days.length === 0) return [];
  const unique = [...new Map(days.map((d) => [dayKey(d), d])).values()].map(
    ({ tenant_id, patient_key, admission_date, facility_code }) => ({
      tenant_id,
      patient_key,
      admission_date,
      facility_code,
    }),
  );
  const sameDay = (alias: string) =>
    sql`${sql.ref(`${alias}.tenant_id`)} = m.tenant_id AND ${sql.ref(`${alias}.patient_key`)} = m.patient_key
        AND ${sql.ref(`${alias}.admission_date`)} = m.admission_date AND ${sql.ref(`${alias}.facility_code`)} = m.facility_code`;
  const ff1Ops = sql`((m.ff1 ->> 'kcode') IS NOT NULL OR NOT m.target)`;
  const opDate = sql`CASE WHEN ${ff1Ops} THEN (m.ff1 ->> 'operation_date')::date ELSE op.procedure_date END`;
  const kcode = sql`CASE WHEN ${ff1Ops} THEN m.ff1 ->> 'kcode' ELSE op.code END`;
  const { rows } = await sql<{ tenant_id: string; patient_key: string }>`
    WITH keys AS (
      SELECT * FROM jsonb_to_recordset(${JSON.stringify(unique)}::jsonb)
        AS k(tenant_id uuid, patient_key text, admission_date date, facility_code text)),
    m AS (
      SELECT a.tenant_id, a.identity, a.patient_key, a.admission_date, k.facility_code, a.content::jsonb AS ff1,
             row_number() OVER (PARTITION BY a.tenant_id, a.patient_key, a.admission_date, k.facility_code
                                ORDER BY a.identity COLLATE "C") = 1 AS target
        FROM keys k JOIN ${sql.table(t.hospital_admissions)} a
          ON a.tenant_id = k.tenant_id AND a.patient_key = k.patient_key AND a.admission_date = k.admission_date
         AND split_part(a.identity, '|', 1) = k.facility_code),
    merged AS (
      SELECT m.tenant_id, m.identity,
             ${kcode} AS kcode,
             CASE WHEN ${ff1Ops} THEN m.ff1 ->> 'operation_name' ELSE nullif(op.name, '') END AS operation_name,
             ${opDate} AS operation_date,
             coalesce(m.ff1 ->> 'anesthesia', CASE WHEN ${kcode} IS NOT NULL THEN an.value END) AS anesthesia,
             coalesce(c.dpc_code, m.ff1 ->> 'dpc_code') AS dpc_code,
             coalesce((m.ff1 ->> 'discharge_date')::date, c.discharge_date) AS discharge_date,
             coalesce(m.ff1 ->> 'department_code', c.department_code) AS department_code
        FROM m
        LEFT JOIN ${sql.table(t.dpc_stay_claims)} c ON m.target AND ${sameDay('c')}
        LEFT JOIN LATERAL (
          SELECT p.code, p.name, p.procedure_date FROM ${sql.table(t.dpc_stay_procedures)} p
           WHERE m.target AND ${sameDay('p')} AND p.kind = 'operation'
           ORDER BY p.procedure_date NULLS LAST, p.code COLLATE "C" LIMIT 1) op ON true
        LEFT JOIN LATERAL (
          SELECT coalesce(nullif(p.name, ''), p.code) AS value FROM ${sql.table(t.dpc_stay_procedures)} p
           WHERE m.target AND ${sameDay('p')} AND p.kind = 'anesthesia'
           ORDER BY (p.procedure_date IS NOT DISTINCT FROM ${opDate}) DESC, p.procedure_date NULLS LAST, p.code COLLATE "C"
           LIMIT 1) an ON true)
    UPDATE ${sql.table(t.hospital_admissions)} AS a SET
      kcode = f.kcode, operation_name = f.operation_name, operation_date = f.operation_date, anesthesia = f.anesthesia,
      dpc_code = f.dpc_code, discharge_date = f.discharge_date, department_code = f.department_code
      FROM merged f
     WHERE a.tenant_id = f.tenant_id AND a.identity = f.identity
       AND (a.kcode, a.operation_name, a.operation_date, a.anesthesia, a.dpc_code, a.discharge_date, a.department_code)
           IS DISTINCT FROM (f.kcode, f.operation_name, f.operation_date, f.anesthesia, f.dpc_code, f.discharge_date, f.department_code)
    RETURNING a.tenant_id, a.patient_key`.execute(trx);
  return [...new Map(rows.map((r) => [`${r.tenant_id}|${r.patient_key}`, r])).values()];
}
