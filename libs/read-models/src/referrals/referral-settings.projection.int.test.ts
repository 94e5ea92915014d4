import { randomBytes, randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '@renkei/db';
import type { RecordedEvent } from '@renkei/event-store';
import type { ReferralFact } from '@renkei/domain';
import { physicalTables } from '@renkei/projections';
import { referralsProjection } from './referrals.projection.ts';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase({ poolMax: 2 });
  await sql`CREATE SCHEMA IF NOT EXISTS rm`.execute(db.kysely);
});
afterAll(() => db?.close());

const institutions = [randomUUID(), randomUUID()];
const day = (offset: number) => new Date(Date.UTC(2024, 0, 1) + offset * 86_400_000).toISOString().slice(0, 10);

const referral = (id: number, patient: number, date: number, institution: string, first = true): ReferralFact => ({
  identity: `referral:${id}`,
  row_number: 1,
  referral_date: day(date),
  patient_id: String(patient),
  patient_key: String(patient),
  medical_institution_id: institution,
  institution_code: null,
  institution_name: 'x',
  from_department: null,
  from_doctor: null,
  to_department: null,
  own_department_id: null,
  to_doctor: null,
  purpose: null,
  first_visit: first,
  source_id: null,
});
const stay = (id: number, patient: number, date: number, kcode: string | null) => ({
  identity: `stay:${id}`,
  patient_key: String(patient),
  admission_date: day(date),
  discharge_date: null,
  department_code: null,
  icd10_code: null,
  icd10_name: null,
  kcode,
  operation_name: null,
  operation_date: null,
  anesthesia: null,
  dpc_code: kcode ? '060100xx01xxxx' : null,
  dpc_name: null,
  scores: {},
  admission_route_code: null,
  referral_in: null,
  discharge_destination_code: null,
  discharge_outcome_code: null,
});

type Ev = { type: string; data: unknown };
const base = { chunk: 0, imported_row_count: 1, failed_row_count: 0, errors: [] };
const imported = (facts: { referrals?: ReferralFact[]; admissions?: ReturnType<typeof stay>[] }): Ev =>
  facts.referrals
    ? { type: 'ReferralsImported', data: { ...base, import_id: randomUUID(), referrals: facts.referrals } }
    : { type: 'HospitalAdmissionsImported', data: { ...base, import_id: randomUUID(), admissions: facts.admissions } };
const periodChange = (days: number, buckets: number): Ev[] => {
  const change = randomUUID();
  return [
    { type: 'ReferralAdmissionPeriodChanged', data: { days } },
    ...Array.from({ length: buckets }, (_, bucket) => ({
      type: 'ReferralStaysRelinkRequested',
      data: { change_id: change, bucket, buckets },
    })),
    // The months the re-link left to sum, in slices (here sometimes fewer than the worker appends: the
    // end takes whatever they left), then the end.
    ...Array.from({ length: Math.max(0, buckets - (days % 2)) }, (_, bucket) => ({
      type: 'ReferralDataImportRollupsRequested',
      data: { import_id: change, phase: 'rollup', bucket, buckets },
    })),
    { type: 'ReferralStaysRelinkCompleted', data: { change_id: change } },
  ];
};

async function project(tenantId: string, batches: Ev[][]) {
  const t = physicalTables(referralsProjection, `s${randomBytes(4).toString('hex')}`);
  await db.kysely.transaction().execute((trx) => referralsProjection.setup(trx, t));
  let n = 0;
  for (const batch of batches) {
    const events: RecordedEvent[] = batch.map((e) => {
      n++;
      return {
        ...e,
        id: randomUUID(),
        stream: `s-${n}`,
        revision: n,
        position: { primary: BigInt(n), secondary: BigInt(n) },
        metadata: {
          tenant_id: tenantId,
          account_id: null,
          correlation_id: tenantId,
          causation_id: null,
          schema_version: 1,
        },
        created_at: new Date(),
      };
    });
    await db.kysely.transaction().execute((trx) => referralsProjection.handle(trx, events, t));
  }
  return t;
}

/** Every link and rollup row of the tenant, keyed by what it is (ids of rows are the same in both builds). */
async function snapshot(t: Record<string, string>) {
  const q = async (query: ReturnType<typeof sql>) =>
    ((await query.execute(db.kysely)).rows as { k: string; v: unknown }[])
      .map((r) => `${r.k}=${JSON.stringify(r.v)}`)
      .sort();
  const out = {
    links: await q(sql`SELECT a.identity AS k, r.identity AS v FROM ${sql.table(t.hospital_admissions!)} a
                        LEFT JOIN ${sql.table(t.referrals!)} r ON r.tenant_id = a.tenant_id AND r.id = a.referral_id`),
    monthly: await q(sql`SELECT concat_ws('|', medical_institution_id, own_department_id, month) AS k,
                           ARRAY[referral_count, first_visit_count, admitted_count, operated_count, reverse_referral_count] AS v
                      FROM ${sql.table(t.referral_monthly_rollups!)} WHERE referral_count + reverse_referral_count > 0`),
    period: await q(sql`SELECT concat_ws('|', medical_institution_id, own_department_id, visit, segment) AS k,
                          ARRAY[referral_count, admitted_count, operated_count] AS v FROM ${sql.table(t.referral_period_rollups!)}`),
    cases: await q(sql`SELECT concat_ws('|', medical_institution_id, mdc, kcode, month) AS k,
                         ARRAY[referral_count, admitted_count, operated_count] AS v FROM ${sql.table(t.referral_case_rollups!)}`),
    tenantCases:
      await q(sql`SELECT concat_ws('|', mdc, kcode, month) AS k, ARRAY[referral_count, admitted_count, operated_count] AS v
                          FROM ${sql.table(t.referral_tenant_case_rollups!)}`),
  };
  return out;
}

const drop = (t: Record<string, string>) => sql`DROP TABLE ${sql.raw(Object.values(t).join(', '))}`.execute(db.kysely);

describe('referral admission period', () => {
  it('after a change and its re-link slices, links and rollups equal a build that had the period from the start', async () => {
    const referralOp = fc
      .record({
        id: fc.integer({ min: 1, max: 12 }),
        patient: fc.integer({ min: 1, max: 6 }),
        date: fc.integer({ min: 0, max: 300 }),
        institution: fc.constantFrom(...institutions),
      })
      .map((r): Ev => imported({ referrals: [referral(r.id, r.patient, r.date, r.institution)] }));
    const stayOp = fc
      .record({
        id: fc.integer({ min: 1, max: 12 }),
        patient: fc.integer({ min: 1, max: 6 }),
        date: fc.integer({ min: 0, max: 400 }),
        kcode: fc.option(fc.constant('K6335'), { nil: null }),
      })
      .map((a): Ev => imported({ admissions: [stay(a.id, a.patient, a.date, a.kcode)] }));
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.oneof(referralOp, stayOp), { minLength: 1, maxLength: 30 }),
        fc.integer({ min: 1, max: 200 }),
        fc.integer({ min: 1, max: 5 }),
        async (facts, days, buckets) => {
          const tenantId = randomUUID();
          // Facts under the default, then the change with its slices one batch each (as the worker appends them).
          const change = periodChange(days, buckets);
          const changed = await project(tenantId, [facts, ...change.map((e) => [e])]);
          const fresh = await project(tenantId, [[change[0]!], facts]);
          expect(await snapshot(changed)).toEqual(await snapshot(fresh));
          await drop(changed);
          await drop(fresh);
        },
      ),
      { numRuns: 15 },
    );
  }, 120_000);

  it('links a stay 100 days after its referral only once the period is 120 days', async () => {
    const tenantId = randomUUID();
    const facts = [
      imported({ referrals: [referral(1, 7, 0, institutions[0]!)] }),
      imported({ admissions: [stay(1, 7, 100, 'K6335')] }),
    ];
    const before = await project(tenantId, [facts]);
    expect((await snapshot(before)).links).toEqual(['stay:1=null']);
    const after = await project(tenantId, [facts, ...periodChange(120, 3).map((e) => [e])]);
    expect((await snapshot(after)).links).toEqual(['stay:1="referral:1"']);
    expect((await snapshot(after)).monthly).toEqual([
      `${institutions[0]}|00000000-0000-0000-0000-000000000000|2024-01-01=[1,1,1,1,0]`,
    ]);
    const { rows } = await sql<{ days: number; version: number }>`
      SELECT admission_period_days AS days, period_version AS version FROM ${sql.table(after.referral_settings!)}`.execute(
      db.kysely,
    );
    expect(rows).toEqual([{ days: 120, version: 3 }]);
    await drop(before);
    await drop(after);
  });
});

describe('hand entries', () => {
  it('a correction moves the referral and its rollups; a withdrawal removes both', async () => {
    const tenantId = randomUUID();
    const id = randomUUID();
    const entered = { ...referral(0, 3, 10, institutions[0]!), identity: `manual:${id}` };
    const moved = { ...entered, referral_date: day(150), medical_institution_id: institutions[0]! };
    const t = await project(tenantId, [
      [imported({ admissions: [stay(1, 3, 200, null)] })],
      [{ type: 'ReferralEntered', data: { referral_id: id, referral: entered } }],
    ]);
    expect((await snapshot(t)).links).toEqual(['stay:1=null']);
    await drop(t);
    const corrected = await project(tenantId, [
      [imported({ admissions: [stay(1, 3, 200, null)] })],
      [{ type: 'ReferralEntered', data: { referral_id: id, referral: entered } }],
      [{ type: 'ReferralEntryUpdated', data: { referral_id: id, referral: moved } }],
    ]);
    const s = await snapshot(corrected);
    expect(s.links).toEqual([`stay:1="manual:${id}"`]);
    expect(s.monthly).toEqual([`${institutions[0]}|00000000-0000-0000-0000-000000000000|2024-05-01=[1,1,1,0,0]`]);
    await drop(corrected);
    const withdrawn = await project(tenantId, [
      [imported({ admissions: [stay(1, 3, 200, null)] })],
      [{ type: 'ReferralEntered', data: { referral_id: id, referral: entered } }],
      [
        { type: 'ReferralEntryUpdated', data: { referral_id: id, referral: moved } },
        { type: 'ReferralEntryDeleted', data: { referral_id: id } },
      ],
    ]);
    const w = await snapshot(withdrawn);
    expect(w).toEqual({ links: ['stay:1=null'], monthly: [], period: [], cases: [], tenantCases: [] });
    await drop(withdrawn);
  });
});
