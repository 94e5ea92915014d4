import type { ReportBucket } from '@renkei/contracts';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { createTestDatabase, type TestDatabase } from '@renkei/db';
import { createPostgresEventStore, streamId, type EventStore, type Position } from '@renkei/event-store';
import { buildInstitutionCode, importInstitutionMaster, institutionIdFromCode } from '@renkei/institution-master';
import { startProjections, waitForPosition } from '@renkei/projections';
import { blankCommunication } from '@renkei/domain/testing';
import { communicationsProjection } from '../../communications/communications.projection.ts';
import { medicalInstitutionCrmProjection } from '../../medical-institutions/medical-institution-crm.projection.ts';
import { referralsProjection } from '../../referrals/referrals.projection.ts';
import { tagsProjection } from '../../tags/tags.projection.ts';
import { visitRollupsProjection } from '../../visit-rollups/visit-rollups.projection.ts';
import type { ReportSourceRow } from './report-source.ts';
import { noOwnDepartment } from './referral-figures.ts';

/**
 * Real rows for the report sources' int tests: a small master, two tenants' referral imports, stays,
 * reverse referrals and communications projected by the real projections, so the rollups the sources
 * read are the ones production keeps; and the same figures counted straight from the facts.
 */

// Institution 4 has no data of tenant A but a tag of it; institution 5 is only tenant B's.
const masterRows = [
  ['新宿中央病院', '東京都新宿区西新宿2-8-1', '一般病院'],
  ['歌舞伎町クリニック', '東京都新宿区歌舞伎町1-1', '診療所'],
  ['品川こども診療所', '東京都品川区広町2-1', '診療所'],
  ['みなと内科', '静岡県静岡市葵区追手町1', '診療所'],
  ['さくら医院', '東京都新宿区西新宿1-1', '診療所'],
  ['梅田総合病院', '大阪府大阪市北区梅田1-1', '一般病院'],
] as const;
const prefectureOf = (address: string) => (address.startsWith('東京') ? 13 : address.startsWith('静岡') ? 22 : 27);
const codes = masterRows.map((r, i) =>
  buildInstitutionCode({
    prefectureCode: prefectureOf(r[1]),
    scoreTable: 1,
    districtNumber: 2,
    institutionNumber: 1001 + i,
  }),
);
export const institutions = codes.map((c) => institutionIdFromCode(c));

/** A small deterministic generator, so a failing case can be replayed from its seed. */
export function random(seed: number) {
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

function importEvents(seed: number, on: readonly (string | null)[], departments: readonly string[]) {
  const r = random(seed);
  const importId = randomUUID();
  const chunk = { import_id: importId, failed_row_count: 0, errors: [] };
  const referrals = Array.from({ length: 400 }, (_, i) => {
    const institution = r.pick(on);
    return {
      identity: `referral:${seed}:${i}`,
      row_number: i + 2,
      referral_date: day('2025-03-01', r.int(150)),
      patient_id: `p${r.int(80)}`,
      patient_key: `p${r.int(80)}`,
      medical_institution_id: institution,
      institution_code: institution ? (codes[institutions.indexOf(institution)] ?? '9999999999') : null,
      institution_name: 'x',
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
  const admissions = Array.from({ length: 200 }, (_, i) => ({
    identity: `stay:${seed}:${i}`,
    patient_key: `p${r.int(80)}`,
    admission_date: day('2025-03-01', r.int(160)),
    discharge_date: null,
    department_code: null,
    icd10_code: null,
    icd10_name: null,
    kcode: r.chance(0.4) ? 'K6335' : null,
    operation_name: null,
    operation_date: null,
    anesthesia: null,
    dpc_code: null,
    dpc_name: null,
    scores: {},
    admission_route_code: null,
    referral_in: null,
    discharge_destination_code: null,
    discharge_outcome_code: null,
  }));
  const reverses = Array.from({ length: 120 }, (_, i) => ({
    identity: `reverse:${seed}:${i}`,
    row_number: i + 2,
    reverse_referral_date: day('2025-03-01', r.int(150)),
    patient_id: `p${r.int(80)}`,
    patient_key: `p${r.int(80)}`,
    medical_institution_id: r.pick(on),
    institution_code: null,
    institution_name: 'x',
    own_department: null,
    own_department_id: r.pick([...departments, null]),
    source_id: null,
  }));
  return {
    stream: streamId('referral_data_import', importId),
    events: [
      {
        type: 'ReferralDataImportRequested',
        data: { import_id: importId, import_type: 'referral', filename: 'x.csv', stored_path: '/x', mapping: null },
      },
      { type: 'ReferralDataImportStarted', data: { import_id: importId, total_row_count: referrals.length } },
      { type: 'ReferralsImported', data: { ...chunk, chunk: 0, imported_row_count: referrals.length, referrals } },
      { type: 'HospitalAdmissionsImported', data: { ...chunk, chunk: 1, imported_row_count: 200, admissions } },
      {
        type: 'ReverseReferralsImported',
        data: { ...chunk, chunk: 2, imported_row_count: 120, reverse_referrals: reverses },
      },
    ],
  };
}

export interface ReportFixture {
  db: TestDatabase;
  tenantA: string;
  tenantB: string;
  departments: string[];
  tagId: string;
  close(): Promise<void>;
}

export async function createReportFixture(): Promise<ReportFixture> {
  const tenantA = randomUUID();
  const tenantB = randomUUID();
  const departments = [randomUUID(), randomUUID()];
  const staff = randomUUID();
  const tagId = randomUUID();
  const db = await createTestDatabase();
  const store: EventStore = await createPostgresEventStore(db);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'report-engine-master-'));
  fs.writeFileSync(
    path.join(dir, 'm.csv'),
    masterRows.map((r, i) => `${codes[i]},${r[0]},,,${r[1]},,,,${r[2]},0,内科,,,開設`).join('\n') + '\n',
  );
  await importInstitutionMaster(db, path.join(dir, 'm.csv'));
  fs.rmSync(dir, { recursive: true, force: true });
  const used = [
    referralsProjection,
    visitRollupsProjection,
    communicationsProjection,
    medicalInstitutionCrmProjection,
    tagsProjection,
  ];
  const projections = startProjections({ db, store, projections: used });
  let last: Position | undefined;
  const append = async (tenantId: string, stream: string, events: { type: string; data: object }[]) => {
    const metadata = {
      tenant_id: tenantId,
      account_id: null,
      correlation_id: randomUUID(),
      causation_id: null,
      schema_version: 1,
    };
    last = (
      await store.append(
        stream,
        events.map((e) => ({ ...e, metadata })),
        { expectedRevision: 'any' },
      )
    ).position;
  };
  for (const tenant of [tenantA, tenantB])
    await append(tenant, streamId('own_departments', tenant), [
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
  // Tenant A refers from institutions 0–2 and one the master does not hold; B from 5 and 0.
  const a = importEvents(1, [institutions[0]!, institutions[1]!, institutions[2]!, randomUUID(), null], departments);
  await append(tenantA, a.stream, a.events);
  const b = importEvents(2, [institutions[5]!, institutions[0]!], departments);
  await append(tenantB, b.stream, b.events);
  const r = random(7);
  for (const [tenant, on] of [
    [tenantA, [institutions[0]!, institutions[3]!]],
    [tenantB, [institutions[5]!, institutions[0]!]],
  ] as const)
    for (let i = 0; i < 60; i++) {
      const id = randomUUID();
      await append(tenant, streamId('communication', id), [
        {
          type: 'CommunicationCreated',
          data: {
            ...blankCommunication(
              {
                communication_id: id,
                medical_institution_id: r.pick(on),
                user_id: staff,
                acted_date: day('2025-03-01', r.int(150)),
              },
              { communication_type: r.pick(['visit', 'new_visit', 'phone'] as const) },
            ),
            tasks: [],
          },
        },
      ]);
    }
  const reached = await waitForPosition(
    db,
    used.map((p) => p.name),
    last!,
    120_000,
  );
  if (!reached) throw new Error('projections did not catch up');
  // A tag of tenant A on institution 4 (no other data): it makes the institution one of A's.
  await sql`INSERT INTO rm.tags (tenant_id, id, name, normalized_name, description, version, created_at, updated_at) VALUES (${tenantA}, ${tagId}, '重点', '重点', '', 1, now(), now())`.execute(
    db.kysely,
  );
  await sql`INSERT INTO rm.mi_tags (tenant_id, medical_institution_id, tag_id) VALUES (${tenantA}, ${institutions[4]}, ${tagId})`.execute(
    db.kysely,
  );
  return {
    db,
    tenantA,
    tenantB,
    departments,
    tagId,
    async close() {
      await projections.stop();
      await store.close();
      await db.close();
    },
  };
}

export type Figures = Record<string, Record<string, Record<string, number>>>;

/**
 * The figures straight from the facts (`rm.referrals` and its stays, `rm.reverse_referrals`, the
 * communications), per institution or own department (nil uuid: none) and bucket: what the rollups
 * must equal. Only referrals with an institution count (the rollups hold no others).
 */
export async function rawFigures(
  db: TestDatabase,
  tenantId: string,
  buckets: readonly ReportBucket[],
  by: 'institution' | 'own_department',
  ownDepartmentIds: readonly string[] = [],
): Promise<Figures> {
  const b = sql`unnest(${sql.val(buckets.map((x) => x.key))}::text[], ${sql.val(buckets.map((x) => x.from))}::date[],
                       ${sql.val(buckets.map((x) => x.to))}::date[]) AS b(bucket, from_day, to_day)`;
  const group = (alias: string) =>
    by === 'institution'
      ? sql`${sql.ref(`${alias}.medical_institution_id`)}::text`
      : sql`coalesce(${sql.ref(`${alias}.own_department_id`)}, ${noOwnDepartment}::uuid)::text`;
  const departmentFilter = (alias: string) =>
    ownDepartmentIds.length > 0
      ? sql` AND coalesce(${sql.ref(`${alias}.own_department_id`)}, ${noOwnDepartment}::uuid) = ANY(${sql.val(ownDepartmentIds)}::uuid[])`
      : sql``;
  const { rows } = await sql<{ id: string; bucket: string; key: string; n: number }>`
    WITH f AS (
      SELECT ${group('r')} AS id, b.bucket, r.medical_institution_id, coalesce(r.first_visit, false) AS first_visit,
             EXISTS (SELECT 1 FROM rm.hospital_admissions a WHERE a.tenant_id = r.tenant_id AND a.referral_id = r.id) AS admitted,
             EXISTS (SELECT 1 FROM rm.hospital_admissions a WHERE a.tenant_id = r.tenant_id AND a.referral_id = r.id
                        AND a.kcode IS NOT NULL) AS operated
        FROM rm.referrals r JOIN ${b} ON r.referral_date BETWEEN b.from_day AND b.to_day
       WHERE r.tenant_id = ${tenantId} AND r.medical_institution_id IS NOT NULL${departmentFilter('r')})
    SELECT id, bucket, k.key, k.n FROM (
      SELECT id, bucket, count(*)::int AS referral_count, count(*) FILTER (WHERE first_visit)::int AS first_visit_count,
             count(*) FILTER (WHERE admitted)::int AS hospital_admission_count,
             count(*) FILTER (WHERE operated)::int AS operation_count,
             count(DISTINCT medical_institution_id)::int AS referring_institution_count
        FROM f GROUP BY 1, 2) s
    CROSS JOIN LATERAL (VALUES ('referral_count', referral_count), ('first_visit_count', first_visit_count),
      ('hospital_admission_count', hospital_admission_count), ('operation_count', operation_count),
      ('referring_institution_count', referring_institution_count)) AS k(key, n)
    UNION ALL
    SELECT ${group('v')}, b.bucket, 'reverse_referral_count', count(*)::int
      FROM rm.reverse_referrals v JOIN ${b} ON v.reverse_referral_date BETWEEN b.from_day AND b.to_day
     WHERE v.tenant_id = ${tenantId} AND v.medical_institution_id IS NOT NULL${departmentFilter('v')}
     GROUP BY 1, 2
    UNION ALL
    SELECT c.medical_institution_id::text, b.bucket, 'visit_count', count(*)::int
      FROM rm.communications c JOIN ${b} ON c.acted_date BETWEEN b.from_day AND b.to_day
     WHERE c.tenant_id = ${tenantId} AND c.communication_type IN ('visit', 'new_visit') AND ${by === 'institution'}
     GROUP BY 1, 2
    UNION ALL
    SELECT c.medical_institution_id::text, b.bucket, 'communication_count', count(*)::int
      FROM rm.communications c JOIN ${b} ON c.acted_date BETWEEN b.from_day AND b.to_day
     WHERE c.tenant_id = ${tenantId} AND ${by === 'institution'}
     GROUP BY 1, 2`.execute(db.kysely);
  const out: Figures = {};
  for (const r of rows) {
    if (r.n === 0 || (by === 'institution' && r.key === 'referring_institution_count')) continue;
    ((out[r.id] ??= {})[r.key] ??= {})[r.bucket] = r.n;
  }
  return out;
}

export const figuresOf = (rows: readonly ReportSourceRow[], which: 'figures' | 'comparisonFigures' = 'figures') => {
  const out: Figures = {};
  // Zeros are left out, as the raw figures leave them (a source may hold a zero for every bucket).
  for (const row of rows) {
    const items: Record<string, Record<string, number>> = {};
    for (const [item, cells] of Object.entries(row[which])) {
      const nonZero = Object.fromEntries(Object.entries(cells).filter(([, n]) => n !== 0));
      if (Object.keys(nonZero).length > 0) items[item] = nonZero;
    }
    if (Object.keys(items).length > 0) out[row.id] = items;
  }
  return out;
};
