import { randomBytes, randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '@renkei/db';
import type { RecordedEvent } from '@renkei/event-store';
import type { HospitalAdmissionFact, ReferralFact, ReverseReferralFact } from '@renkei/domain';
import { physicalTables } from '@renkei/projections';
import { createMasterStub } from './master-stub.testing.ts';
import { referralsProjection, rollupTuning } from './referrals.projection.ts';
import { noDepartment } from './referrals.keys.ts';

/**
 * Own departments re-matched by the referrals projection (docs/decisions.md, 2026-11-29): whatever the
 * batching, the facts' own departments follow the rule (the event's department while the tenant's list
 * is unknown or holds it, else the department of the row's name), and every table is the same.
 */
let db: TestDatabase;
const institutions = [randomUUID(), randomUUID()];
beforeAll(async () => {
  db = await createTestDatabase({ poolMax: 2 });
  await sql`CREATE SCHEMA IF NOT EXISTS rm`.execute(db.kysely);
  await createMasterStub(db, [
    { id: institutions[0]!, facility_type_id: 1, prefecture_code: 13, prefecture: '東京都', city: '府中市' },
    { id: institutions[1]!, facility_type_id: 2, prefecture_code: 14, prefecture: '神奈川県', city: '横浜市' },
  ]);
});
afterAll(async () => {
  rollupTuning.bulkMonths = 256;
  await db?.close();
});

const tenants = [randomUUID(), randomUUID()];
// Sorted, so the lowest id of two departments of the same name is departments[0] before departments[1].
const departments = [randomUUID(), randomUUID(), randomUUID(), randomUUID()].sort();
const stale = randomUUID();
const names = ['外科', '内科', 'リハビリ', 'ﾘﾊﾋﾞﾘ ', '眼科'];
const texts = ['外科', ' 外科', 'ﾘﾊﾋﾞﾘ', 'リハビリ', '内科', '総合診療科'];
const day = (offset: number) => new Date(Date.UTC(2024, 2, 1) + offset * 86_400_000).toISOString().slice(0, 10);

type Op =
  | { kind: 'referral'; tenant: string; fact: ReferralFact }
  | { kind: 'reverse'; tenant: string; fact: ReverseReferralFact }
  | { kind: 'admission'; tenant: string; fact: HospitalAdmissionFact }
  | { kind: 'departments'; tenant: string; list: { id: string; name: string; department_id: null }[] };

const tenant = fc.constantFrom(...tenants);
const institution = fc.option(fc.constantFrom(...institutions), { nil: null, freq: 5 });
const eventDepartment = fc.option(fc.constantFrom(...departments, stale), { nil: null });
const text = fc.option(fc.constantFrom(...texts), { nil: null, freq: 6 });
const patient = fc.integer({ min: 1, max: 3 });
const date = fc.integer({ min: 0, max: 120 });
const referralOp = fc
  .record({ tenant, id: fc.integer({ min: 1, max: 6 }), patient, date, institution, department: eventDepartment, text })
  .map((r): Op => ({
    kind: 'referral',
    tenant: r.tenant,
    fact: {
      identity: `referral:${r.id}`,
      row_number: 1,
      referral_date: day(r.date),
      patient_id: String(r.patient),
      patient_key: String(r.patient),
      medical_institution_id: r.institution,
      institution_code: null,
      institution_name: 'x',
      from_department: null,
      from_doctor: null,
      to_department: r.text,
      own_department_id: r.department,
      to_doctor: null,
      purpose: null,
      first_visit: true,
      source_id: null,
    },
  }));
const reverseOp = fc
  .record({ tenant, id: fc.integer({ min: 1, max: 4 }), patient, date, institution, department: eventDepartment, text })
  .map((v): Op => ({
    kind: 'reverse',
    tenant: v.tenant,
    fact: {
      identity: `reverse:${v.id}`,
      row_number: 1,
      reverse_referral_date: day(v.date),
      patient_id: String(v.patient),
      patient_key: String(v.patient),
      medical_institution_id: v.institution,
      institution_code: null,
      institution_name: 'x',
      own_department: v.text,
      own_department_id: v.department,
      source_id: null,
    },
  }));
const admissionOp = fc.record({ tenant, id: fc.integer({ min: 1, max: 4 }), patient, date }).map((a): Op => ({
  kind: 'admission',
  tenant: a.tenant,
  fact: {
    identity: `stay:${a.id}`,
    patient_key: String(a.patient),
    admission_date: day(a.date),
    discharge_date: null,
    department_code: null,
    icd10_code: null,
    icd10_name: null,
    kcode: 'K6335',
    operation_name: null,
    operation_date: null,
    anesthesia: null,
    dpc_code: '040080xx99x0xx',
    dpc_name: null,
    scores: {},
    admission_route_code: null,
    referral_in: null,
    discharge_destination_code: null,
    discharge_outcome_code: null,
  },
}));
const departmentsOp = fc
  .record({
    tenant,
    list: fc.uniqueArray(fc.record({ id: fc.constantFrom(...departments), name: fc.constantFrom(...names) }), {
      selector: (d) => d.id,
      maxLength: 4,
    }),
  })
  .map((d): Op => ({
    kind: 'departments',
    tenant: d.tenant,
    list: d.list.map((x) => ({ ...x, department_id: null })),
  }));

function eventOf(op: Op) {
  if (op.kind === 'departments') return { type: 'OwnDepartmentsReplaced', data: { own_departments: op.list } };
  const base = { import_id: randomUUID(), chunk: 0, imported_row_count: 1, failed_row_count: 0, errors: [] };
  if (op.kind === 'referral') return { type: 'ReferralsImported', data: { ...base, referrals: [op.fact] } };
  if (op.kind === 'reverse')
    return { type: 'ReverseReferralsImported', data: { ...base, reverse_referrals: [op.fact] } };
  return { type: 'HospitalAdmissionsImported', data: { ...base, admissions: [op.fact] } };
}

const nameKey = (s: string) => s.normalize('NFKC').trim();

/** The rule, event by event: `tenant|kind|identity` → the own department of the row. */
function expectedDepartments(ops: Op[]): Map<string, string | null> {
  const lists = new Map<string, { ids: Set<string>; byName: Map<string, string> }>();
  const rows = new Map<string, { tenant: string; content: string; text: string | null; department: string | null }>();
  const byName = (list: { byName: Map<string, string> }, text: string | null) =>
    text === null ? null : (list.byName.get(nameKey(text)) ?? null);
  for (const op of ops) {
    if (op.kind === 'admission') continue;
    if (op.kind === 'departments') {
      const list = { ids: new Set(op.list.map((d) => d.id)), byName: new Map<string, string>() };
      for (const d of op.list) {
        const key = nameKey(d.name);
        const named = list.byName.get(key);
        if (key !== '' && (named === undefined || d.id < named)) list.byName.set(key, d.id);
      }
      lists.set(op.tenant, list);
      for (const row of rows.values())
        if (row.tenant === op.tenant && (row.department === null || !list.ids.has(row.department)))
          row.department = byName(list, row.text);
      continue;
    }
    const key = `${op.tenant}|${op.kind}|${op.fact.identity}`;
    const content = JSON.stringify(op.fact);
    if (rows.get(key)?.content === content) continue;
    const text = op.kind === 'referral' ? op.fact.to_department : op.fact.own_department;
    const list = lists.get(op.tenant);
    const id = op.fact.own_department_id;
    const department = !list || (id !== null && list.ids.has(id)) ? id : byName(list, text);
    rows.set(key, { tenant: op.tenant, content, text, department });
  }
  return new Map([...rows].map(([key, row]) => [key, row.department]));
}

const referralTables = (suffix: string) => physicalTables(referralsProjection, suffix);
type Tables = ReturnType<typeof referralTables>;

/** Every table of the build, each as its rows' JSON sorted. */
async function dump(t: Tables): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const [name, physical] of Object.entries<string>(t)) {
    const { rows } = await sql<{ j: string }>`
      SELECT to_jsonb(x)::text AS j FROM ${sql.table(physical)} x ORDER BY 1`.execute(db.kysely);
    out[name] = rows.map((r) => r.j);
  }
  return out;
}

describe('own departments in the referrals projection', () => {
  it('follow the rule and give the same tables whatever the batching', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.oneof(referralOp, referralOp, reverseOp, admissionOp, departmentsOp, departmentsOp), {
          minLength: 1,
          maxLength: 30,
        }),
        // Where the batches of the second build end (the first has one event per batch).
        fc.uniqueArray(fc.integer({ min: 1, max: 29 }), { maxLength: 4 }),
        fc.constantFrom(1, 256),
        async (ops, cuts, bulkMonths) => {
          rollupTuning.bulkMonths = bulkMonths;
          const events: RecordedEvent[] = ops.map((op, i) => ({
            ...eventOf(op),
            id: randomUUID(),
            stream: `s-${i}`,
            revision: 0,
            position: { primary: BigInt(i + 1), secondary: BigInt(i + 1) },
            metadata: {
              tenant_id: op.tenant,
              account_id: null,
              correlation_id: op.tenant,
              causation_id: null,
              schema_version: 1,
            },
            created_at: new Date('2024-08-01T00:00:00Z'),
          }));
          const bounds = [0, ...cuts.filter((c) => c < events.length).sort((a, b) => a - b), events.length];
          const builds = [events.map((e) => [e]), bounds.slice(1).map((end, i) => events.slice(bounds[i], end))];
          const dumps: Record<string, string[]>[] = [];
          for (const batches of builds) {
            const t = referralTables(`o${randomBytes(4).toString('hex')}`);
            await db.kysely.transaction().execute((trx) => referralsProjection.setup(trx, t));
            for (const batch of batches)
              if (batch.length > 0)
                await db.kysely.transaction().execute((trx) => referralsProjection.handle(trx, batch, t));

            const { rows } = await sql<{ k: string; d: string | null }>`
              SELECT tenant_id || '|referral|' || identity AS k, own_department_id AS d FROM ${sql.table(t.referrals)}
              UNION ALL
              SELECT tenant_id || '|reverse|' || identity, own_department_id FROM ${sql.table(t.reverse_referrals)}`.execute(
              db.kysely,
            );
            expect(new Map(rows.map((r) => [r.k, r.d]))).toEqual(expectedDepartments(ops));

            // The monthly rollups count each fact under the department it has now.
            const { rows: diff } = await sql<{ n: number }>`
              WITH facts AS (
                SELECT tenant_id, medical_institution_id, coalesce(own_department_id, ${noDepartment}::uuid) AS d,
                       date_trunc('month', referral_date)::date AS month, count(*)::int AS r, 0 AS v
                  FROM ${sql.table(t.referrals)} WHERE medical_institution_id IS NOT NULL GROUP BY 1, 2, 3, 4
                UNION ALL
                SELECT tenant_id, medical_institution_id, coalesce(own_department_id, ${noDepartment}::uuid),
                       date_trunc('month', reverse_referral_date)::date, 0, count(*)::int
                  FROM ${sql.table(t.reverse_referrals)} WHERE medical_institution_id IS NOT NULL GROUP BY 1, 2, 3, 4),
              want AS (SELECT tenant_id, medical_institution_id, d, month, sum(r)::int AS r, sum(v)::int AS v
                         FROM facts GROUP BY 1, 2, 3, 4),
              have AS (SELECT tenant_id, medical_institution_id, own_department_id AS d, month,
                              referral_count AS r, reverse_referral_count AS v
                         FROM ${sql.table(t.referral_monthly_rollups)} WHERE referral_count > 0 OR reverse_referral_count > 0)
              SELECT count(*)::int AS n FROM ((SELECT * FROM want EXCEPT SELECT * FROM have)
                                              UNION ALL (SELECT * FROM have EXCEPT SELECT * FROM want)) x`.execute(
              db.kysely,
            );
            expect(diff[0]!.n).toBe(0);
            dumps.push(await dump(t));
            await sql`DROP TABLE ${sql.raw(Object.values<string>(t).join(', '))}`.execute(db.kysely);
          }
          // Every table, by its logical name.
          expect(dumps[1]).toEqual(dumps[0]);
        },
      ),
      { numRuns: 40 },
    );
  }, 180_000);
});
