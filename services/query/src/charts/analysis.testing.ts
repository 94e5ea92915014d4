/**
 * The data the analysis HTTP tests share: a small institution master, two tenants (A a group with
 * own departments, tags and communications; B another tenant with data on the same institutions),
 * three 年度 of referrals, stays and reverse referrals with the fiscal-year and leap-day boundaries,
 * written as events through the projections; and the raw facts read back for the tests' own counts.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { sql } from 'kysely';
import { defaultResources, featureKeys, type FeatureKey } from '@renkei/contracts';
import { createTestDatabase, type TestDatabase } from '@renkei/db';
import { createPostgresEventStore, formatPosition, streamId, type EventStore } from '@renkei/event-store';
import { buildInstitutionCode, importInstitutionMaster, institutionIdFromCode } from '@renkei/institution-master';
import { startProjections } from '@renkei/projections';
import { createTestAuth, type TestAuth } from '@renkei/service-kit/testing';
import { buildQueryApp, queryProjections } from '../index.ts';

const masterRows = [
  ['みなと内科', '静岡県静岡市葵区追手町1', '診療所'],
  ['駿河総合病院', '静岡県静岡市駿河区南町2', '一般病院'],
  ['浜松北クリニック', '静岡県浜松市中央区元城町3', '診療所'],
  ['新宿中央病院', '東京都新宿区西新宿2-8-1', '一般病院'],
  ['品川こども診療所', '東京都品川区広町2-1', '診療所'],
  ['沼津記念病院', '静岡県沼津市御幸町16', '一般病院'],
] as const;
const codes = masterRows.map((r, i) =>
  buildInstitutionCode({
    prefectureCode: r[1].startsWith('東京') ? 13 : 22,
    scoreTable: 1,
    districtNumber: 2,
    institutionNumber: 1001 + i,
  }),
);
export const institutions = codes.map((c) => institutionIdFromCode(c));
export const institutionName = new Map(institutions.map((id, i) => [id, masterRows[i]![0]]));
export const departments: string[] = [randomUUID(), randomUUID()];
export const staff: string[] = [randomUUID(), randomUUID()];
export const tag = randomUUID();
export const tenantA = randomUUID();
export const tenantB = randomUUID();
/** Tenant C has no data and is not a group. */
export const tenantC = randomUUID();

export interface RawReferral {
  tenant_id: string;
  date: string;
  institution: string;
  own_department: string;
  referral_department: string;
  visit: 'first' | 'return' | 'unknown';
  admitted: boolean;
  operated: boolean;
  mdc: string;
  kcode: string;
  facility_type: string;
  prefecture: string;
  /** The master's prefecture code as the area filter takes it ('13', '22'). */
  prefecture_code: string;
  city: string;
  tags: string[];
}
export interface RawReverse {
  date: string;
  institution: string;
  own_department: string;
  facility_type: string;
  prefecture_code: string;
  city: string;
  tags: string[];
}

export interface AnalysisFixture {
  db: TestDatabase;
  app: FastifyInstance;
  position: string;
  post(
    url: string,
    body: unknown,
    tenantId?: string,
    features?: readonly FeatureKey[],
  ): Promise<LightMyRequestResponse>;
  get(url: string, tenantId?: string, features?: readonly FeatureKey[]): Promise<LightMyRequestResponse>;
  /** Tenant A's referrals with an institution, as the fact tables hold them (the oracle of the tests). */
  referrals: RawReferral[];
  reverses: RawReverse[];
  /** First and last referral date of tenant A (any referral, matched or not). */
  covered: { from: string; to: string };
  /** Another upload of tenant A (a batch of its referrals projection); the next `post` waits for it. */
  importMore(seed: number, sizes: [number, number, number]): Promise<void>;
  /** `referrals`, `reverses` and `covered` read again (after an upload or a master change). */
  reread(): Promise<Pick<AnalysisFixture, 'referrals' | 'reverses' | 'covered'>>;
  close(): Promise<void>;
}

/** A small deterministic generator, so a failure reproduces. */
function random(seed: number) {
  let s = seed;
  const next = () => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s / 2147483648;
  };
  return {
    int: (n: number) => Math.floor(next() * n),
    pick: <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!,
    chance: (p: number) => next() < p,
  };
}

const day = (from: string, offset: number) =>
  new Date(Date.parse(`${from}T00:00:00Z`) + offset * 86_400_000).toISOString().slice(0, 10);
const boundaryDays = ['2024-02-29', '2024-03-31', '2024-04-01', '2025-03-31', '2025-04-01', '2023-04-01'];

function referralFacts(seed: number, count: number) {
  const r = random(seed);
  return Array.from({ length: count }, (_, i) => {
    const date = i < boundaryDays.length * 3 ? boundaryDays[i % boundaryDays.length]! : day('2023-04-01', r.int(1060));
    const institution = r.chance(0.06) ? null : r.pick(institutions);
    return {
      identity: `referral:${seed}:${i}`,
      row_number: i + 2,
      referral_date: date,
      patient_id: `p${r.int(120)}`,
      patient_key: `p${r.int(120)}`,
      medical_institution_id: institution,
      institution_code: institution ? codes[institutions.indexOf(institution)]! : null,
      institution_name: institution ? 'x' : '不明医院',
      from_department: r.pick(['内科', '外科', null] as const),
      from_doctor: null,
      to_department: null,
      own_department_id: r.pick([...departments, null]),
      to_doctor: null,
      purpose: null,
      first_visit: r.pick([true, false, null] as const),
      source_id: null,
    };
  });
}

function admissionFacts(seed: number, count: number) {
  const r = random(seed);
  return Array.from({ length: count }, (_, i) => ({
    identity: `stay:${seed}:${i}`,
    patient_key: `p${r.int(120)}`,
    admission_date: day('2023-04-01', r.int(1080)),
    discharge_date: null,
    department_code: null,
    icd10_code: null,
    icd10_name: null,
    kcode: r.chance(0.4) ? r.pick(['K6335', 'K718-21', 'K0461']) : null,
    operation_name: null,
    operation_date: null,
    anesthesia: null,
    dpc_code: r.chance(0.8) ? r.pick(['040080xx99x0xx', '060100xx01xxxx', '050050xx0200xx']) : null,
    dpc_name: null,
    scores: {},
    admission_route_code: null,
    referral_in: null,
    discharge_destination_code: null,
    discharge_outcome_code: null,
  }));
}

function reverseFacts(seed: number, count: number) {
  const r = random(seed);
  return Array.from({ length: count }, (_, i) => {
    const institution = r.pick(institutions);
    return {
      identity: `reverse:${seed}:${i}`,
      row_number: i + 2,
      reverse_referral_date: day('2023-04-01', r.int(1060)),
      patient_id: `p${r.int(120)}`,
      patient_key: `p${r.int(120)}`,
      medical_institution_id: institution,
      institution_code: codes[institutions.indexOf(institution)]!,
      institution_name: 'x',
      own_department: null,
      own_department_id: r.pick([...departments, null]),
      source_id: null,
    };
  });
}

export async function startAnalysisFixture(): Promise<AnalysisFixture> {
  const db = await createTestDatabase();
  const store: EventStore = await createPostgresEventStore(db);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'analysis-api-master-'));
  fs.writeFileSync(
    path.join(dir, 'm.csv'),
    masterRows.map((r, i) => `${codes[i]},${r[0]},,,${r[1]},,,,${r[2]},0,内科,,,開設`).join('\n') + '\n',
  );
  await importInstitutionMaster(db, path.join(dir, 'm.csv'));
  fs.rmSync(dir, { recursive: true, force: true });
  const projections = startProjections({ db, store, projections: queryProjections });
  const testAuth: TestAuth = await createTestAuth({ audience: defaultResources.query });
  const app = await buildQueryApp({
    db,
    auth: testAuth.auth,
    logger: false,
    rateLimit: false,
    underPressure: false,
    minPositionTimeoutMs: 20_000,
  });

  const metadata = (tenantId: string) => ({
    tenant_id: tenantId,
    account_id: null,
    correlation_id: randomUUID(),
    causation_id: null,
    schema_version: 1,
  });
  let last = '';
  const append = async (tenantId: string, stream: string, events: { type: string; data: object }[]) => {
    const result = await store.append(
      stream,
      events.map((e) => ({ ...e, metadata: metadata(tenantId) })),
      { expectedRevision: 'any' },
    );
    last = formatPosition(result.position);
  };

  const importData = async (tenantId: string, seed: number, sizes: [number, number, number]) => {
    const importId = randomUUID();
    const chunk = { import_id: importId, failed_row_count: 0, errors: [] };
    await append(tenantId, streamId('referral_data_import', importId), [
      {
        type: 'ReferralDataImportRequested',
        data: { import_id: importId, import_type: 'referral', filename: 'x.csv', stored_path: '/x', mapping: null },
      },
      { type: 'ReferralDataImportStarted', data: { import_id: importId, total_row_count: sizes[0] } },
      {
        type: 'ReferralsImported',
        data: { ...chunk, chunk: 0, imported_row_count: sizes[0], referrals: referralFacts(seed, sizes[0]) },
      },
      {
        type: 'HospitalAdmissionsImported',
        data: { ...chunk, chunk: 1, imported_row_count: sizes[1], admissions: admissionFacts(seed + 1, sizes[1]) },
      },
      {
        type: 'ReverseReferralsImported',
        data: {
          ...chunk,
          chunk: 2,
          imported_row_count: sizes[2],
          reverse_referrals: reverseFacts(seed + 2, sizes[2]),
        },
      },
    ]);
  };

  const tenantEvent = (tenantId: string, type: string, extra: object) => ({
    type,
    data: {
      tenant_id: tenantId,
      slug: `t-${tenantId.slice(0, 8)}`,
      name: 'テナント',
      plan: 'standard202211',
      features: [],
      limits: { max_account_count: null, max_tag_count: null },
      enabled_phase: false,
      ...extra,
    },
  });
  await append(tenantA, streamId('tenant', tenantA), [
    tenantEvent(tenantA, 'TenantRegistered', {}),
    tenantEvent(tenantA, 'TenantSettingsChanged', {
      medical_institution_id: null,
      group_medical_institution_ids: [institutions[0], institutions[3]],
    }),
  ]);
  await append(tenantA, streamId('own_departments', tenantA), [
    {
      type: 'OwnDepartmentsReplaced',
      data: {
        own_departments: [
          { id: departments[0], name: '循環器内科', department_id: null },
          { id: departments[1], name: '消化器外科', department_id: null },
        ],
      },
    },
  ]);
  for (const i of [0, 2, 5])
    await append(tenantA, streamId('medical_institution', `${tenantA}:${institutions[i]}`), [
      {
        type: 'MedicalInstitutionTagsChanged',
        data: { medical_institution_id: institutions[i], tag_ids: [tag], added_tag_ids: [tag], removed_tag_ids: [] },
      },
    ]);
  const r = random(99);
  for (let i = 0; i < 40; i++) {
    const id = randomUUID();
    await append(tenantA, streamId('communication', id), [
      {
        type: 'CommunicationCreated',
        data: {
          communication_id: id,
          medical_institution_id: r.pick(institutions.slice(0, 4)),
          communication_type: r.pick(['visit', 'phone', 'new_visit'] as const),
          acted_date: day('2024-04-01', r.int(700)),
          category: null,
          purpose: null,
          story: '',
          event_name: null,
          memo: '',
          other_memo: '',
          person_in_charge_hospital: null,
          attendee: null,
          is_doctor_attended: false,
          user_id: r.pick(staff),
          attachment_ids: [],
          label_values: [],
          tasks: [],
        },
      },
    ]);
  }
  await importData(tenantA, 1, [500, 260, 160]);
  await importData(tenantB, 1000, [120, 40, 40]);

  const post: AnalysisFixture['post'] = async (url, body, tenantId = tenantA, features = featureKeys) => {
    const token = await testAuth.token({ tenantId, accountId: randomUUID(), role: 'owner', features: [...features] });
    return app.inject({
      method: 'POST',
      url,
      payload: body as object,
      headers: { authorization: `Bearer ${token}`, 'x-min-position': last },
    });
  };
  const get: AnalysisFixture['get'] = async (url, tenantId = tenantA, features = featureKeys) => {
    const token = await testAuth.token({ tenantId, accountId: randomUUID(), role: 'member', features: [...features] });
    return app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}`, 'x-min-position': last } });
  };
  // Wait for the projections once, through a call that reads them all.
  await post('/api/charts/referrals', { period: { from: '2024-04-01', to: '2024-04-30' } });

  const raw = await readRaw(db);
  return {
    db,
    app,
    position: last,
    post,
    get,
    ...raw,
    importMore: (seed, sizes) => importData(tenantA, seed, sizes),
    reread: () => readRaw(db),
    async close() {
      await app.close();
      await projections.stop();
      await store.close();
      await db.close();
    },
  };
}

/** Tenant A's facts straight from the fact tables (not the rollups), with the institution's facts. */
async function readRaw(db: TestDatabase) {
  const { rows: referrals } = await sql<RawReferral>`
    SELECT r.tenant_id, to_char(r.referral_date, 'YYYY-MM-DD') AS date, r.medical_institution_id AS institution,
           coalesce(r.own_department_id, '00000000-0000-0000-0000-000000000000'::uuid) AS own_department,
           coalesce(r.from_department, '') AS referral_department,
           CASE WHEN r.first_visit THEN 'first' WHEN NOT r.first_visit THEN 'return' ELSE 'unknown' END AS visit,
           EXISTS (SELECT 1 FROM rm.hospital_admissions a WHERE a.tenant_id = r.tenant_id AND a.referral_id = r.id) AS admitted,
           EXISTS (SELECT 1 FROM rm.hospital_admissions a WHERE a.tenant_id = r.tenant_id AND a.referral_id = r.id AND a.kcode IS NOT NULL) AS operated,
           coalesce((SELECT left(a.dpc_code, 2) FROM rm.hospital_admissions a WHERE a.tenant_id = r.tenant_id AND a.referral_id = r.id
                      ORDER BY a.admission_date, a.id LIMIT 1), '') AS mdc,
           coalesce((SELECT a.kcode FROM rm.hospital_admissions a WHERE a.tenant_id = r.tenant_id AND a.referral_id = r.id AND a.kcode IS NOT NULL
                      ORDER BY a.admission_date, a.id LIMIT 1), '') AS kcode,
           m.facility_type_id::text AS facility_type, m.prefecture, m.city,
           lpad(m.prefecture_code::text, 2, '0') AS prefecture_code,
           array(SELECT t.tag_id::text FROM rm.mi_tags t WHERE t.tenant_id = r.tenant_id AND t.medical_institution_id = r.medical_institution_id) AS tags
      FROM rm.referrals r JOIN ref.medical_institutions m ON m.id = r.medical_institution_id
     WHERE r.tenant_id = ${tenantA}`.execute(db.kysely);
  const { rows: reverses } = await sql<RawReverse>`
    SELECT to_char(v.reverse_referral_date, 'YYYY-MM-DD') AS date, v.medical_institution_id AS institution,
           coalesce(v.own_department_id, '00000000-0000-0000-0000-000000000000'::uuid) AS own_department,
           m.facility_type_id::text AS facility_type, lpad(m.prefecture_code::text, 2, '0') AS prefecture_code, m.city,
           array(SELECT t.tag_id::text FROM rm.mi_tags t WHERE t.tenant_id = v.tenant_id AND t.medical_institution_id = v.medical_institution_id) AS tags
      FROM rm.reverse_referrals v JOIN ref.medical_institutions m ON m.id = v.medical_institution_id
     WHERE v.tenant_id = ${tenantA}`.execute(db.kysely);
  const { rows } = await sql<{ from: string; to: string }>`
    SELECT to_char(min(referral_date), 'YYYY-MM-DD') AS "from", to_char(max(referral_date), 'YYYY-MM-DD') AS "to"
      FROM rm.referrals WHERE tenant_id = ${tenantA}`.execute(db.kysely);
  return { referrals, reverses, covered: rows[0]! };
}
