import { randomBytes, randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '@renkei/db';
import type { RecordedEvent } from '@renkei/event-store';
import type { HospitalAdmissionFact, ReferralFact, ReverseReferralFact } from '@renkei/domain';
import { physicalTables } from '@renkei/projections';
import {
  rebuildTenantAnalysisRollups,
  referralAdmissionPeriodDays,
  referralsProjection,
  rollupTuning,
} from './referrals.projection.ts';
import { createMasterStub } from './master-stub.testing.ts';
import { rebuildTenantDayAndMdcRollups } from './referrals.daily-rollups.ts';
import { noCity, noFacilityType, noPrefecture, rebuildTenantAttributeRollups } from './referrals.attribute-rollups.ts';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase({ poolMax: 2 });
  await sql`CREATE SCHEMA IF NOT EXISTS rm`.execute(db.kysely);
  // The third institution has no facility type, prefecture nor city; a fourth id (none) is not in the master.
  // The first and second share a city name in two prefectures (府中市 is in 東京都 and 広島県).
  await createMasterStub(db, [
    { id: institutions[0]!, facility_type_id: 1, prefecture_code: 13, prefecture: '東京都', city: '府中市' },
    { id: institutions[1]!, facility_type_id: 2, prefecture_code: 14, prefecture: '神奈川県', city: '府中市' },
    { id: institutions[2]!, facility_type_id: null, prefecture_code: null, prefecture: '', city: '' },
  ]);
});

/**
 * A master sync as the importer makes one: its run row first, then the rows it changes (here the first
 * institution moves to another facility type, prefecture and city, or back).
 */
async function syncMaster() {
  await sql`INSERT INTO ref.sync_runs (status) VALUES ('completed')`.execute(db.kysely);
  await sql`UPDATE ref.medical_institutions SET facility_type_id = 3 - facility_type_id,
                   prefecture_code = CASE WHEN prefecture_code = 13 THEN 27 ELSE 13 END,
                   prefecture = CASE WHEN prefecture_code = 13 THEN '大阪府' ELSE '東京都' END,
                   city = CASE WHEN prefecture_code = 13 THEN '堺市' ELSE '府中市' END
             WHERE id = ${institutions[0]}`.execute(db.kysely);
}
afterAll(async () => {
  rollupTuning.bulkMonths = 256;
  await db?.close();
});

const institutions = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
const departments = [randomUUID(), randomUUID()];
const day = (offset: number) => new Date(Date.UTC(2024, 0, 1) + offset * 86_400_000).toISOString().slice(0, 10);

type Op =
  | { kind: 'referral'; fact: ReferralFact }
  | { kind: 'admission'; fact: HospitalAdmissionFact }
  | { kind: 'reverse'; fact: ReverseReferralFact };

// Small pools of identities, patients and dates, so re-uploads, corrections, ties and late links happen often.
const patient = fc.integer({ min: 1, max: 4 });
const date = fc.integer({ min: 0, max: 420 });
const institution = fc.option(fc.constantFrom(...institutions), { nil: null, freq: 6 });
const department = fc.option(fc.constantFrom(...departments), { nil: null });
const referralOp = fc
  .record({
    id: fc.integer({ min: 1, max: 10 }),
    patient,
    date,
    institution,
    department,
    first: fc.option(fc.boolean(), { nil: null }),
    from: fc.option(fc.constantFrom('内科', '外科'), { nil: null }),
  })
  .map((r): Op => ({
    kind: 'referral',
    fact: {
      identity: `referral:${r.id}`,
      row_number: 1,
      referral_date: day(r.date),
      patient_id: `000${r.patient}`,
      patient_key: String(r.patient),
      medical_institution_id: r.institution,
      institution_code: null,
      institution_name: 'x',
      from_department: r.from,
      from_doctor: null,
      to_department: null,
      own_department_id: r.department,
      to_doctor: null,
      purpose: null,
      first_visit: r.first,
      source_id: null,
    },
  }));
const admissionOp = fc
  .record({
    id: fc.integer({ min: 1, max: 8 }),
    patient,
    date,
    kcode: fc.option(fc.constantFrom('K6335', 'K718-21'), { nil: null }),
    dpc: fc.option(fc.constantFrom('040080xx99x0xx', '060100xx01xxxx'), { nil: null }),
  })
  .map((a): Op => ({
    kind: 'admission',
    fact: {
      identity: `stay:${a.id}`,
      patient_key: String(a.patient),
      admission_date: day(a.date),
      discharge_date: null,
      department_code: null,
      icd10_code: null,
      icd10_name: null,
      kcode: a.kcode,
      operation_name: null,
      operation_date: null,
      anesthesia: null,
      dpc_code: a.dpc,
      dpc_name: null,
      scores: {},
      admission_route_code: null,
      referral_in: null,
      discharge_destination_code: null,
      discharge_outcome_code: null,
    },
  }));
const reverseOp = fc
  .record({ id: fc.integer({ min: 1, max: 5 }), patient, date, institution, department })
  .map((v): Op => ({
    kind: 'reverse',
    fact: {
      identity: `reverse:${v.id}`,
      row_number: 1,
      reverse_referral_date: day(v.date),
      patient_id: String(v.patient),
      patient_key: String(v.patient),
      medical_institution_id: v.institution,
      institution_code: null,
      institution_name: 'x',
      own_department: null,
      own_department_id: v.department,
      source_id: null,
    },
  }));

const eventOf = (op: Op, n: number) => {
  const base = { import_id: randomUUID(), chunk: 0, imported_row_count: 1, failed_row_count: 0, errors: [] };
  if (op.kind === 'referral') return { type: 'ReferralsImported', data: { ...base, referrals: [op.fact] } };
  if (op.kind === 'admission') return { type: 'HospitalAdmissionsImported', data: { ...base, admissions: [op.fact] } };
  void n;
  return { type: 'ReverseReferralsImported', data: { ...base, reverse_referrals: [op.fact] } };
};

/** The events as the store hands them to the projection, one stream each, in this order. */
const recorded = (tenantId: string, events: { type: string; data: object }[]): RecordedEvent[] =>
  events.map((e, i) => ({
    ...e,
    id: randomUUID(),
    stream: `referral_data_import-${i}`,
    revision: 0,
    position: { primary: BigInt(i + 1), secondary: BigInt(i + 1) },
    metadata: {
      tenant_id: tenantId,
      account_id: null,
      correlation_id: tenantId,
      causation_id: null,
      schema_version: 1,
    },
    created_at: new Date(),
  }));

const addDays = (iso: string, days: number) => new Date(Date.parse(iso) + days * 86_400_000).toISOString().slice(0, 10);

/** The final facts and the stays each referral is followed by, by the rule of issue 12 §4. */
function finalFacts(ops: Op[], ids: Map<string, string>) {
  const last = <K extends Op['kind']>(kind: K) =>
    [...new Map(ops.filter((o) => o.kind === kind).map((o) => [o.fact.identity, o.fact])).values()] as Extract<
      Op,
      { kind: K }
    >['fact'][];
  const referrals = last('referral');
  const admissions = last('admission');
  const links = new Map<string, HospitalAdmissionFact[]>();
  for (const a of admissions) {
    const candidates = referrals
      .filter(
        (r) =>
          r.patient_key === a.patient_key &&
          r.referral_date <= a.admission_date &&
          a.admission_date <= addDays(r.referral_date, referralAdmissionPeriodDays),
      )
      .sort((x, y) =>
        x.referral_date === y.referral_date
          ? ids.get(x.identity)! < ids.get(y.identity)!
            ? 1
            : -1
          : x.referral_date < y.referral_date
            ? 1
            : -1,
      );
    const chosen = candidates[0];
    if (chosen) links.set(chosen.identity, [...(links.get(chosen.identity) ?? []), a]);
  }
  return { referrals, links, reverses: last('reverse') };
}

/** The same figures straight from the final facts. */
function expected(ops: Op[], ids: Map<string, string>, from: string, to: string) {
  const { referrals, links, reverses } = finalFacts(ops, ids);
  const inPeriod = (d: string) => d.slice(0, 7) >= from && d.slice(0, 7) <= to;
  const out = new Map<string, number[]>();
  const add = (inst: string | null, i: number) => {
    if (!inst) return;
    const v = out.get(inst) ?? [0, 0, 0, 0, 0];
    v[i]!++;
    out.set(inst, v);
  };
  for (const r of referrals.filter((r) => inPeriod(r.referral_date))) {
    add(r.medical_institution_id, 0);
    if (r.first_visit) add(r.medical_institution_id, 1);
    const linked = links.get(r.identity) ?? [];
    if (linked.length > 0) add(r.medical_institution_id, 2);
    if (linked.some((a) => a.kcode)) add(r.medical_institution_id, 3);
  }
  for (const v of reverses.filter((v) => inPeriod(v.reverse_referral_date))) add(v.medical_institution_id, 4);
  return Object.fromEntries([...out].filter(([, v]) => v.some((x) => x > 0)));
}

const noDepartment = '00000000-0000-0000-0000-000000000000';
const visitOf = (first: boolean | null) => (first === null ? 'unknown' : first ? 'first' : 'return');
function segmentOf(date: string) {
  const weekday = new Date(`${date}T00:00:00Z`).getUTCDay();
  const monday = addDays(date, -((weekday + 6) % 7));
  const first = `${date.slice(0, 7)}-01`;
  return monday > first ? monday : first;
}

/** The analysis rollups' rows (zero rows left out) straight from the final facts. */
function expectedAnalysis(ops: Op[], ids: Map<string, string>) {
  const { referrals, links, reverses } = finalFacts(ops, ids);
  const period = new Map<string, number[]>();
  const cases = new Map<string, number[]>();
  const daily = new Map<string, number[]>();
  const add = (map: Map<string, number[]>, key: string, values: number[]) => {
    const v = map.get(key) ?? values.map(() => 0);
    values.forEach((x, i) => (v[i]! += x));
    map.set(key, v);
  };
  for (const r of referrals) {
    if (!r.medical_institution_id) continue;
    const stays = [...(links.get(r.identity) ?? [])].sort((a, b) =>
      a.admission_date === b.admission_date
        ? ids.get(a.identity)! < ids.get(b.identity)!
          ? -1
          : 1
        : a.admission_date < b.admission_date
          ? -1
          : 1,
    );
    const dims = [
      r.medical_institution_id,
      r.own_department_id ?? noDepartment,
      r.from_department ?? '',
      visitOf(r.first_visit),
    ];
    const admitted = stays.length > 0 ? 1 : 0;
    const operated = stays.some((a) => a.kcode) ? 1 : 0;
    add(period, [...dims, segmentOf(r.referral_date)].join('|'), [1, admitted, operated, 0]);
    add(daily, [...dims, r.referral_date].join('|'), [1, admitted, operated, 0]);
    const mdc = stays[0]?.dpc_code?.slice(0, 2) ?? '';
    const kcode = stays.find((a) => a.kcode)?.kcode ?? '';
    add(cases, [...dims, mdc, kcode, `${r.referral_date.slice(0, 7)}-01`].join('|'), [1, admitted, operated]);
  }
  for (const v of reverses) {
    if (!v.medical_institution_id) continue;
    const dims = [v.medical_institution_id, v.own_department_id ?? noDepartment, '', 'unknown'];
    add(period, [...dims, segmentOf(v.reverse_referral_date)].join('|'), [0, 0, 0, 1]);
    add(daily, [...dims, v.reverse_referral_date].join('|'), [0, 0, 0, 1]);
  }
  // The per-tenant tables: the same rows without the institution, summed.
  const withoutInstitution = (map: Map<string, number[]>) => {
    const out = new Map<string, number[]>();
    for (const [key, values] of map) add(out, key.split('|').slice(1).join('|'), values);
    return Object.fromEntries(out);
  };
  // The per-institution totals by month, quarter and 年度, from the segment rows.
  const institutionTotals = new Map<string, number[]>();
  for (const [key, values] of period) {
    const [institution, , , , segment] = key.split('|') as [string, string, string, string, string];
    const m = Number(segment.slice(5, 7));
    const quarter = `${segment.slice(0, 5)}${String(m - ((m - 1) % 3)).padStart(2, '0')}-01`;
    const fiscalYear = `${m >= 4 ? segment.slice(0, 4) : Number(segment.slice(0, 4)) - 1}-04-01`;
    for (const [span, start] of [
      ['month', `${segment.slice(0, 7)}-01`],
      ['quarter', quarter],
      ['fiscal_year', fiscalYear],
    ])
      add(institutionTotals, [institution, span, start].join('|'), values);
    // The 年度-to-month totals: the month's figures in every total from it to March.
    for (let i = 0; ; i++) {
      const at = new Date(Date.UTC(Number(segment.slice(0, 4)), m - 1 + i, 1)).toISOString().slice(0, 10);
      add(institutionTotals, [institution, 'fiscal_year_to_month', at].join('|'), values);
      if (at.slice(5, 7) === '03') break;
    }
  }
  // The per-institution case mix by MDC per month, quarter and 年度, from the case-mix rows.
  const mdcTotals = new Map<string, number[]>();
  for (const [key, values] of cases) {
    const [institution, , , , mdc, , month] = key.split('|') as string[] as [
      string,
      string,
      string,
      string,
      string,
      string,
      string,
    ];
    const m = Number(month.slice(5, 7));
    const quarter = `${month.slice(0, 5)}${String(m - ((m - 1) % 3)).padStart(2, '0')}-01`;
    const fiscalYear = `${m >= 4 ? month.slice(0, 4) : Number(month.slice(0, 4)) - 1}-04-01`;
    for (const [span, start] of [
      ['month', month],
      ['quarter', quarter],
      ['fiscal_year', fiscalYear],
    ])
      add(mdcTotals, [institution, mdc, span, start].join('|'), values);
  }
  // The per-institution day rows: the day rows without own department, referral department and visit.
  const institutionDaily = new Map<string, number[]>();
  for (const [key, values] of daily) {
    const parts = key.split('|');
    add(institutionDaily, [parts[0], parts[4]].join('|'), values);
  }
  return {
    institutionDaily: Object.fromEntries(institutionDaily),
    mdc: Object.fromEntries(mdcTotals),
    period: Object.fromEntries(period),
    cases: Object.fromEntries(cases),
    tenantPeriod: withoutInstitution(period),
    tenantCases: withoutInstitution(cases),
    institution: Object.fromEntries(institutionTotals),
    daily: Object.fromEntries(daily),
    tenantDaily: withoutInstitution(daily),
  };
}

type Tables = ReturnType<typeof referralTables>;
const referralTables = (suffix: string) => physicalTables(referralsProjection, suffix);

/** Every rollup table of the tenant against the same figures computed from the final facts. */
async function checkRollups(t: Tables, tenantId: string, ops: Op[], periods: [string, string][]): Promise<void> {
  const idRows = await sql<{ identity: string; id: string }>`SELECT identity, id FROM ${sql.table(t.referrals)}
      UNION ALL SELECT identity, id FROM ${sql.table(t.hospital_admissions)}`.execute(db.kysely);
  const ids = new Map(idRows.rows.map((r) => [r.identity, r.id]));
  for (const [a, b] of periods) {
    const [from, to] = a <= b ? [a, b] : [b, a];
    const { rows } = await sql<{ id: string; v: number[] }>`
          SELECT medical_institution_id AS id,
                 ARRAY[sum(referral_count), sum(first_visit_count), sum(admitted_count), sum(operated_count), sum(reverse_referral_count)]::int[] AS v
            FROM ${sql.table(t.referral_monthly_rollups)}
           WHERE tenant_id = ${tenantId} AND month >= ${`${from}-01`}::date AND month <= ${`${to}-01`}::date
           GROUP BY medical_institution_id`.execute(db.kysely);
    const actual = Object.fromEntries(rows.filter((r) => r.v.some((x) => x > 0)).map((r) => [r.id, r.v]));
    expect(actual).toEqual(expected(ops, ids, from, to));
  }
  const periodRows = await sql<{ k: string; v: number[] }>`
        SELECT concat_ws('|', medical_institution_id, own_department_id, referral_department, visit, to_char(segment, 'YYYY-MM-DD')) AS k,
               ARRAY[referral_count, admitted_count, operated_count, reverse_referral_count] AS v
          FROM ${sql.table(t.referral_period_rollups)} WHERE tenant_id = ${tenantId}`.execute(db.kysely);
  const caseRows = await sql<{ k: string; v: number[] }>`
        SELECT concat_ws('|', medical_institution_id, own_department_id, referral_department, visit, mdc, kcode, to_char(month, 'YYYY-MM-DD')) AS k,
               ARRAY[referral_count, admitted_count, operated_count] AS v
          FROM ${sql.table(t.referral_case_rollups)} WHERE tenant_id = ${tenantId}`.execute(db.kysely);
  const tenantPeriodRows = await sql<{ k: string; v: number[] }>`
        SELECT concat_ws('|', own_department_id, referral_department, visit, to_char(segment, 'YYYY-MM-DD')) AS k,
               ARRAY[referral_count, admitted_count, operated_count, reverse_referral_count] AS v
          FROM ${sql.table(t.referral_tenant_period_rollups)} WHERE tenant_id = ${tenantId}`.execute(db.kysely);
  const tenantCaseRows = await sql<{ k: string; v: number[] }>`
        SELECT concat_ws('|', own_department_id, referral_department, visit, mdc, kcode, to_char(month, 'YYYY-MM-DD')) AS k,
               ARRAY[referral_count, admitted_count, operated_count] AS v
          FROM ${sql.table(t.referral_tenant_case_rollups)} WHERE tenant_id = ${tenantId}`.execute(db.kysely);
  const institutionRows = await sql<{ k: string; v: number[] }>`
        SELECT concat_ws('|', medical_institution_id, span, to_char(period_start, 'YYYY-MM-DD')) AS k,
               ARRAY[referral_count, admitted_count, operated_count, reverse_referral_count] AS v
          FROM ${sql.table(t.referral_institution_rollups)} WHERE tenant_id = ${tenantId}`.execute(db.kysely);
  const dailyRows = await sql<{ k: string; v: number[] }>`
        SELECT concat_ws('|', medical_institution_id, own_department_id, referral_department, visit, to_char(day, 'YYYY-MM-DD')) AS k,
               ARRAY[referral_count, admitted_count, operated_count, reverse_referral_count] AS v
          FROM ${sql.table(t.referral_daily_rollups)} WHERE tenant_id = ${tenantId}`.execute(db.kysely);
  const tenantDailyRows = await sql<{ k: string; v: number[] }>`
        SELECT concat_ws('|', own_department_id, referral_department, visit, to_char(day, 'YYYY-MM-DD')) AS k,
               ARRAY[referral_count, admitted_count, operated_count, reverse_referral_count] AS v
          FROM ${sql.table(t.referral_tenant_daily_rollups)} WHERE tenant_id = ${tenantId}`.execute(db.kysely);
  const mdcRows = await sql<{ k: string; v: number[] }>`
        SELECT concat_ws('|', medical_institution_id, mdc, span, to_char(period_start, 'YYYY-MM-DD')) AS k,
               ARRAY[referral_count, admitted_count, operated_count] AS v
          FROM ${sql.table(t.referral_institution_mdc_rollups)} WHERE tenant_id = ${tenantId}`.execute(db.kysely);
  const institutionDailyRows = await sql<{ k: string; v: number[] }>`
    SELECT concat_ws('|', medical_institution_id, to_char(day, 'YYYY-MM-DD')) AS k,
           ARRAY[referral_count, admitted_count, operated_count, reverse_referral_count] AS v
      FROM ${sql.table(t.referral_institution_daily_rollups)} WHERE tenant_id = ${tenantId}`.execute(db.kysely);
  // The rows keyed by the master's facility type and prefecture, against the per-institution rows
  // expected from the facts joined to the master as it was when they were summed (their basis: a sync
  // before a batch that touched no institution-month leaves them stale, and readers then do not use them).
  const { rows: bases } = await sql<{ basis: number | null; runs: number }>`
    SELECT (SELECT b.master_runs FROM ${sql.table(t.referral_attribute_bases)} b WHERE b.tenant_id = ${tenantId}) AS basis,
           (SELECT count(*)::int FROM ref.sync_runs) AS runs`.execute(db.kysely);
  const { basis, runs } = bases[0]!;
  const { rows: master } = await sql<{ id: string; f: number | null; c: number | null; p: string; city: string }>`
    SELECT id, facility_type_id AS f, prefecture_code AS c, prefecture AS p, city FROM ref.medical_institutions`.execute(
    db.kysely,
  );
  const attributesOf = new Map(master.map((m) => [m.id, m]));
  // Each sync moves the first institution back and forth: the master of an older basis differs by its parity.
  if (basis !== null && (runs - basis) % 2 === 1) {
    const moved = attributesOf.get(institutions[0]!)!;
    attributesOf.set(
      institutions[0]!,
      moved.f === 1
        ? { ...moved, f: 2, c: 27, p: '大阪府', city: '堺市' }
        : { ...moved, f: 1, c: 13, p: '東京都', city: '府中市' },
    );
  }
  const want = expectedAnalysis(ops, ids);
  const facilityType: Record<string, number[]> = {};
  const prefecture: Record<string, number[]> = {};
  const area: Record<string, number[]> = {};
  const attributeMdc: Record<string, number[]> = {};
  const areaMdc: Record<string, number[]> = {};
  const facilityTypeDays: Record<string, number[]> = {};
  const prefectureDays: Record<string, number[]> = {};
  const areaDays: Record<string, number[]> = {};
  const addTo = (map: Record<string, number[]>, key: string, values: number[]) => {
    const v = (map[key] ??= values.map(() => 0));
    values.forEach((x, i) => (v[i]! += x));
  };
  for (const [key, values] of Object.entries(want.period)) {
    const [institution, ...rest] = key.split('|');
    const m = attributesOf.get(institution!);
    const month = `${rest[3]!.slice(0, 7)}-01`;
    const dims = [...rest.slice(0, 3), month].join('|');
    addTo(facilityType, `${m?.f ?? noFacilityType}|${dims}`, values);
    addTo(prefecture, `${m?.c ?? noPrefecture}|${dims}`, values);
    addTo(area, `${m?.f ?? noFacilityType}|${m?.c ?? noPrefecture}|${m?.city ?? noCity}|${dims}`, values);
  }
  for (const [key, values] of Object.entries(want.daily)) {
    const [institution, ...dims] = key.split('|');
    const m = attributesOf.get(institution!);
    addTo(facilityTypeDays, [m?.f ?? noFacilityType, ...dims].join('|'), values);
    addTo(prefectureDays, [m?.c ?? noPrefecture, ...dims].join('|'), values);
    addTo(areaDays, [m?.f ?? noFacilityType, m?.c ?? noPrefecture, m?.city ?? noCity, ...dims].join('|'), values);
  }
  for (const [key, values] of Object.entries(want.mdc)) {
    const [institution, ...rest] = key.split('|');
    const m = attributesOf.get(institution!);
    addTo(attributeMdc, [m?.f ?? noFacilityType, m?.c ?? noPrefecture, m?.p ?? '', ...rest].join('|'), values);
    addTo(
      areaMdc,
      [m?.f ?? noFacilityType, m?.c ?? noPrefecture, m?.p ?? '', m?.city ?? noCity, ...rest].join('|'),
      values,
    );
  }
  const nonZero = (map: Record<string, number[]>) =>
    Object.fromEntries(Object.entries(map).filter(([, v]) => v.some((x) => x !== 0)));
  const attributeRows = async (table: string, key: string, columns: string) =>
    Object.fromEntries(
      (
        await sql<{ k: string; v: number[] }>`
          SELECT concat_ws('|', ${sql.raw(key)}) AS k, ARRAY[${sql.raw(columns)}] AS v
            FROM ${sql.table(table)} WHERE tenant_id = ${tenantId}`.execute(db.kysely)
      ).rows.map((r) => [r.k, r.v]),
    );
  const chartColumns = 'referral_count, admitted_count, operated_count, reverse_referral_count';
  const chartKey = (attribute: string) =>
    `${attribute}, own_department_id, referral_department, visit, to_char(month, 'YYYY-MM-DD')`;
  expect({
    facilityType: await attributeRows(t.referral_facility_type_rollups, chartKey('facility_type_id'), chartColumns),
    prefecture: await attributeRows(t.referral_prefecture_rollups, chartKey('prefecture_code'), chartColumns),
    area: await attributeRows(
      t.referral_area_rollups,
      chartKey('facility_type_id, prefecture_code, city'),
      chartColumns,
    ),
    facilityTypeDays: await attributeRows(
      t.referral_facility_type_daily_rollups,
      "facility_type_id, own_department_id, referral_department, visit, to_char(day, 'YYYY-MM-DD')",
      chartColumns,
    ),
    prefectureDays: await attributeRows(
      t.referral_prefecture_daily_rollups,
      "prefecture_code, own_department_id, referral_department, visit, to_char(day, 'YYYY-MM-DD')",
      chartColumns,
    ),
    areaDays: await attributeRows(
      t.referral_area_daily_rollups,
      "facility_type_id, prefecture_code, city, own_department_id, referral_department, visit, to_char(day, 'YYYY-MM-DD')",
      chartColumns,
    ),
    attributeMdc: await attributeRows(
      t.referral_attribute_mdc_rollups,
      "facility_type_id, prefecture_code, prefecture, mdc, span, to_char(period_start, 'YYYY-MM-DD')",
      'referral_count, admitted_count, operated_count',
    ),
    areaMdc: await attributeRows(
      t.referral_area_mdc_rollups,
      "facility_type_id, prefecture_code, prefecture, city, mdc, span, to_char(period_start, 'YYYY-MM-DD')",
      'referral_count, admitted_count, operated_count',
    ),
  }).toEqual({
    facilityType: nonZero(facilityType),
    prefecture: nonZero(prefecture),
    area: nonZero(area),
    facilityTypeDays: nonZero(facilityTypeDays),
    prefectureDays: nonZero(prefectureDays),
    areaDays: nonZero(areaDays),
    attributeMdc: nonZero(attributeMdc),
    areaMdc: nonZero(areaMdc),
  });
  expect({
    institutionDaily: Object.fromEntries(institutionDailyRows.rows.map((r) => [r.k, r.v])),
    mdc: Object.fromEntries(mdcRows.rows.map((r) => [r.k, r.v])),
    period: Object.fromEntries(periodRows.rows.map((r) => [r.k, r.v])),
    cases: Object.fromEntries(caseRows.rows.map((r) => [r.k, r.v])),
    tenantPeriod: Object.fromEntries(tenantPeriodRows.rows.map((r) => [r.k, r.v])),
    tenantCases: Object.fromEntries(tenantCaseRows.rows.map((r) => [r.k, r.v])),
    institution: Object.fromEntries(institutionRows.rows.map((r) => [r.k, r.v])),
    daily: Object.fromEntries(dailyRows.rows.map((r) => [r.k, r.v])),
    tenantDaily: Object.fromEntries(tenantDailyRows.rows.map((r) => [r.k, r.v])),
  }).toEqual(expectedAnalysis(ops, ids));
}

describe('referral rollups', () => {
  it('answer every period exactly as the facts do, whatever the order and batching of uploads, and so does a bulk build', async () => {
    const tenantId = randomUUID();
    const months = fc.integer({ min: 0, max: 13 }).map((m) => day(m * 31).slice(0, 7));
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.oneof(referralOp, referralOp, admissionOp, reverseOp), { minLength: 1, maxLength: 40 }),
        fc.integer({ min: 1, max: 5 }),
        fc.array(fc.tuple(months, months), { minLength: 1, maxLength: 4 }),
        fc.boolean(),
        // Touched months from which a tenant's rollups are summed set-wise instead of month by month.
        fc.constantFrom(1, 3, 256),
        async (ops, batches, periods, sync, bulkMonths) => {
          rollupTuning.bulkMonths = bulkMonths;
          const t = physicalTables(referralsProjection, `p${randomBytes(4).toString('hex')}`);
          await db.kysely.transaction().execute((trx) => referralsProjection.setup(trx, t));
          const events = recorded(tenantId, ops.map(eventOf));
          const size = Math.ceil(events.length / batches);
          for (let i = 0; i < events.length; i += size) {
            // A master sync before the last of several batches: the attribute rows summed against the old
            // master are stale, and that batch sums them again against the new one.
            if (sync && i > 0 && i + size >= events.length) await syncMaster();
            await db.kysely
              .transaction()
              .execute((trx) => referralsProjection.handle(trx, events.slice(i, i + size), t));
          }
          const check = () => checkRollups(t, tenantId, ops, periods);
          // Kept incrementally, batch by batch (deltas into the per-tenant and per-institution sums).
          await check();
          // Built set-wise from the same facts, as a bulk build does: the same rows.
          await db.kysely
            .transaction()
            .execute((trx) => rebuildTenantAnalysisRollups(trx, t, tenantId, { from: '2023-04-01', to: '2025-04-01' }));
          // The day and MDC rows from nothing, so the check sees the bulk build's rows and not the batches' left over.
          await sql`DELETE FROM ${sql.table(t.referral_daily_rollups)}`.execute(db.kysely);
          await sql`DELETE FROM ${sql.table(t.referral_tenant_daily_rollups)}`.execute(db.kysely);
          await sql`DELETE FROM ${sql.table(t.referral_institution_daily_rollups)}`.execute(db.kysely);
          await sql`DELETE FROM ${sql.table(t.referral_institution_mdc_rollups)}`.execute(db.kysely);
          await db.kysely
            .transaction()
            .execute((trx) =>
              rebuildTenantDayAndMdcRollups(trx, t, tenantId, { from: '2023-04-01', to: '2025-04-01' }),
            );
          await sql`DELETE FROM ${sql.table(t.referral_facility_type_rollups)}`.execute(db.kysely);
          await sql`DELETE FROM ${sql.table(t.referral_prefecture_rollups)}`.execute(db.kysely);
          await sql`DELETE FROM ${sql.table(t.referral_area_rollups)}`.execute(db.kysely);
          await sql`DELETE FROM ${sql.table(t.referral_attribute_mdc_rollups)}`.execute(db.kysely);
          await sql`DELETE FROM ${sql.table(t.referral_area_mdc_rollups)}`.execute(db.kysely);
          await sql`DELETE FROM ${sql.table(t.referral_facility_type_daily_rollups)}`.execute(db.kysely);
          await sql`DELETE FROM ${sql.table(t.referral_prefecture_daily_rollups)}`.execute(db.kysely);
          await sql`DELETE FROM ${sql.table(t.referral_area_daily_rollups)}`.execute(db.kysely);
          await db.kysely.transaction().execute((trx) => rebuildTenantAttributeRollups(trx, t, tenantId));
          const { rows: basis } = await sql<{ ok: boolean }>`
            SELECT b.master_runs = (SELECT count(*)::int FROM ref.sync_runs) AS ok
              FROM ${sql.table(t.referral_attribute_bases)} b WHERE b.tenant_id = ${tenantId}`.execute(db.kysely);
          expect(basis[0]?.ok).toBe(true);
          await check();
          await sql`DROP TABLE ${sql.raw(Object.values<string>(t).join(', '))}`.execute(db.kysely);
        },
      ),
      { numRuns: 60 },
    );
  }, 120_000);
  it('stay exact when imports defer their rollups to their slices or their end, between other changes, in any batching', async () => {
    const tenantId = randomUUID();
    const months = fc.integer({ min: 0, max: 13 }).map((m) => day(m * 31).slice(0, 7));
    await fc.assert(
      fc.asyncProperty(
        // Group 0: a change applied at once (a hand entry, an event written before v8); 1–3: an import's chunk.
        fc.array(
          fc.record({
            op: fc.oneof(referralOp, referralOp, admissionOp, reverseOp),
            group: fc.integer({ min: 0, max: 3 }),
          }),
          { minLength: 1, maxLength: 40 },
        ),
        // Each import's end: its slices (or only its end, as an import failed for good), some events after its last chunk.
        fc.array(fc.record({ buckets: fc.integer({ min: 1, max: 3 }), slices: fc.boolean(), after: fc.nat(12) }), {
          minLength: 3,
          maxLength: 3,
        }),
        fc.integer({ min: 1, max: 6 }),
        fc.array(fc.tuple(months, months), { minLength: 1, maxLength: 3 }),
        fc.constantFrom(1, 3, 256),
        async (items, ends, batches, periods, bulkMonths) => {
          rollupTuning.bulkMonths = bulkMonths;
          const t = referralTables(`d${randomBytes(4).toString('hex')}`);
          await db.kysely.transaction().execute((trx) => referralsProjection.setup(trx, t));
          const imports = ends.map(() => randomUUID());
          const closing = (g: number) => {
            const importId = imports[g]!;
            const { buckets, slices } = ends[g]!;
            const steps = slices
              ? (['link', 'rollup'] as const).flatMap((phase) =>
                  Array.from({ length: buckets }, (_, bucket) => ({
                    type: 'ReferralDataImportRollupsRequested',
                    data: { import_id: importId, phase, bucket, buckets },
                  })),
                )
              : [];
            return [
              ...steps,
              {
                type: 'ReferralDataImportFinished',
                data: {
                  import_id: importId,
                  status: 'completed',
                  imported_row_count: 0,
                  failed_row_count: 0,
                  unprocessed_row_count: 0,
                  abortion_row_number: null,
                  error: null,
                },
              },
            ];
          };
          // An import ends some events after its last chunk: hand entries and other imports come between.
          const lastOf = ends.map((_, g) => items.findLastIndex((item) => item.group === g + 1));
          const endAt = ends.map((e, g) => Math.max(lastOf[g]!, 0) + e.after);
          const sequence: { type: string; data: object }[] = [];
          items.forEach(({ op, group }, i) => {
            const event = eventOf(op, i);
            sequence.push(
              group === 0
                ? event
                : {
                    type: event.type,
                    data: { ...event.data, import_id: imports[group - 1]!, chunk: i, rollups_deferred: true },
                  },
            );
            endAt.forEach((at, g) => {
              if (at === i) sequence.push(...closing(g));
            });
          });
          endAt.forEach((at, g) => {
            if (at >= items.length) sequence.push(...closing(g));
          });
          const events = recorded(tenantId, sequence);
          const size = Math.ceil(events.length / batches);
          for (let i = 0; i < events.length; i += size)
            await db.kysely
              .transaction()
              .execute((trx) => referralsProjection.handle(trx, events.slice(i, i + size), t));
          await checkRollups(
            t,
            tenantId,
            items.map((item) => item.op),
            periods,
          );
          // Nothing is left pending once every import has ended.
          const { rows } = await sql<{ n: number }>`
            SELECT (SELECT count(*) FROM ${sql.table(t.referral_pending_patients)})::int
                 + (SELECT count(*) FROM ${sql.table(t.referral_pending_months)})::int AS n`.execute(db.kysely);
          expect(rows[0]!.n).toBe(0);
          await sql`DROP TABLE ${sql.raw(Object.values<string>(t).join(', '))}`.execute(db.kysely);
        },
      ),
      { numRuns: 60 },
    );
  }, 180_000);
  it('stay exact when uploads are withdrawn: a row goes once no remaining upload holds it, in any slicing and batching', async () => {
    const tenantId = randomUUID();
    const months = fc.integer({ min: 0, max: 13 }).map((m) => day(m * 31).slice(0, 7));
    await fc.assert(
      fc.asyncProperty(
        // Each op is a row of one of three uploads; the small identity pools make uploads overlap.
        fc.array(fc.record({ op: fc.oneof(referralOp, referralOp, admissionOp, reverseOp), upload: fc.nat(2) }), {
          minLength: 1,
          maxLength: 40,
        }),
        // Per upload: withdrawn or not, in how many slices, some rows of later uploads after its last row.
        // With or without its re-link and rollup slices before its end (the end takes whatever is left).
        fc.array(
          fc.record({
            withdrawn: fc.boolean(),
            buckets: fc.integer({ min: 1, max: 3 }),
            // Rows a slice takes of each kind: few enough that the slices may leave some to the end.
            rows: fc.integer({ min: 1, max: 4 }),
            slices: fc.boolean(),
            after: fc.nat(8),
          }),
          { minLength: 3, maxLength: 3 },
        ),
        fc.integer({ min: 1, max: 6 }),
        fc.array(fc.tuple(months, months), { minLength: 1, maxLength: 3 }),
        fc.constantFrom(1, 3, 256),
        async (items, plans, batches, periods, bulkMonths) => {
          rollupTuning.bulkMonths = bulkMonths;
          const t = referralTables(`w${randomBytes(4).toString('hex')}`);
          await db.kysely.transaction().execute((trx) => referralsProjection.setup(trx, t));
          const uploads = plans.map(() => randomUUID());
          // An upload is withdrawn some rows after its last one; a later row of it would not be possible.
          const lastOf = plans.map((_, u) => items.findLastIndex((item) => item.upload === u));
          const withdrawAt = plans.map((p, u) => (p.withdrawn ? Math.max(lastOf[u]!, 0) + p.after : -1));
          const kept = items.filter((item, i) => !(plans[item.upload]!.withdrawn && i > withdrawAt[item.upload]!));
          const withdrawal = (u: number) => {
            const { buckets, rows, slices } = plans[u]!;
            const import_id = uploads[u]!;
            const each = <T>(f: (bucket: number) => T) => Array.from({ length: buckets }, (_, bucket) => f(bucket));
            return [
              { type: 'ReferralDataImportWithdrawalRequested', data: { import_id, import_type: 'referral' } },
              ...each((bucket) => ({
                type: 'ReferralDataImportWithdrawn',
                data: { import_id, bucket, buckets, rows },
              })),
              ...(slices
                ? (['link', 'rollup'] as const).flatMap((phase) =>
                    each((bucket) => ({
                      type: 'ReferralDataImportRollupsRequested',
                      data: { import_id, phase, bucket, buckets },
                    })),
                  )
                : []),
              { type: 'ReferralDataImportWithdrawalCompleted', data: { import_id } },
            ];
          };
          const sequence: { type: string; data: object }[] = [];
          // The model: each identity's row (its last content) and the uploads that hold it.
          const rows = new Map<string, { op: Op; holders: Set<number> }>();
          const withdraw = (u: number) => {
            sequence.push(...withdrawal(u));
            for (const [key, row] of rows) if (row.holders.delete(u) && row.holders.size === 0) rows.delete(key);
          };
          kept.forEach(({ op, upload }, i) => {
            const event = eventOf(op, i);
            sequence.push({ type: event.type, data: { ...event.data, import_id: uploads[upload]!, chunk: i } });
            const key = `${op.kind}|${op.fact.identity}`;
            const row = rows.get(key);
            rows.set(key, { op, holders: new Set([...(row?.holders ?? []), upload]) });
            plans.forEach((p, u) => {
              if (p.withdrawn && withdrawAt[u] === i) withdraw(u);
            });
          });
          plans.forEach((p, u) => {
            if (p.withdrawn && withdrawAt[u]! >= kept.length) withdraw(u);
          });
          const events = recorded(tenantId, sequence);
          const size = Math.ceil(events.length / batches);
          for (let i = 0; i < events.length; i += size)
            await db.kysely
              .transaction()
              .execute((trx) => referralsProjection.handle(trx, events.slice(i, i + size), t));
          const remaining = [...rows.values()].map((r) => r.op);
          const { rows: facts } = await sql<{ k: string }>`
            SELECT 'referral|' || identity AS k FROM ${sql.table(t.referrals)}
            UNION ALL SELECT 'reverse|' || identity FROM ${sql.table(t.reverse_referrals)}
            UNION ALL SELECT 'admission|' || identity FROM ${sql.table(t.hospital_admissions)}`.execute(db.kysely);
          expect(facts.map((f) => f.k).sort()).toEqual([...rows.keys()].sort());
          await checkRollups(t, tenantId, remaining, periods);
          // Nothing is left pending once every withdrawal has ended.
          const { rows: pending } = await sql<{ n: number }>`
            SELECT (SELECT count(*) FROM ${sql.table(t.referral_pending_patients)})::int
                 + (SELECT count(*) FROM ${sql.table(t.referral_pending_months)})::int AS n`.execute(db.kysely);
          expect(pending[0]!.n).toBe(0);
          await sql`DROP TABLE ${sql.raw(Object.values<string>(t).join(', '))}`.execute(db.kysely);
        },
      ),
      { numRuns: 60 },
    );
  }, 180_000);
});
