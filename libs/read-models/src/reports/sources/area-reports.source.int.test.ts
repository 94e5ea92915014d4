import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { periodBuckets, type PeriodUnit, type ReportBucket, ReportDefinitionInput } from '@renkei/contracts';
import { createTestDatabase, type TestDatabase } from '@renkei/db';
import { createPostgresEventStore, streamId, type EventStore, type Position } from '@renkei/event-store';
import { buildInstitutionCode, importInstitutionMaster, institutionIdFromCode } from '@renkei/institution-master';
import { startProjections, waitForPosition } from '@renkei/projections';
import { blankCommunication } from '@renkei/domain/testing';
import { referralsProjection, visitRollupsProjection, communicationsProjection } from '../../index.ts';
import type { ReadModels } from '../../read-models.ts';
import { runReport } from '../engine/report-engine.ts';
import { random } from '../engine/report-fixture.testing.ts';
import type { ReportSourceRequest, ReportSourceRow } from '../engine/report-source.ts';
import { areaReportsSource } from './area-reports.source.ts';

// The master: three institutions in 新宿区 (one without any data), one each in 品川区, 静岡市葵区 and
// 大阪市北区 (only the other tenant's), so areas share and split institutions.
const masterRows = [
  ['新宿中央病院', '東京都新宿区西新宿2-8-1', '一般病院'],
  ['歌舞伎町クリニック', '東京都新宿区歌舞伎町1-1', '診療所'],
  ['品川こども診療所', '東京都品川区広町2-1', '診療所'],
  ['みなと内科', '静岡県静岡市葵区追手町1', '診療所'],
  ['梅田総合病院', '大阪府大阪市北区梅田1-1', '一般病院'],
  ['新宿西口医院', '東京都新宿区西新宿1-1', '診療所'],
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
const institutions = codes.map((c) => institutionIdFromCode(c));
const tenantA = randomUUID();
const tenantB = randomUUID();
const departments = [randomUUID(), randomUUID()];
const staff = randomUUID();

const day = (from: string, offset: number) =>
  new Date(Date.parse(`${from}T00:00:00Z`) + offset * 86_400_000).toISOString().slice(0, 10);

/** Referral facts from 2025-03-01 over ~5 months on the given institutions (some not in the master). */
function importEvents(seed: number, on: readonly (string | null)[]) {
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
  const reverses = Array.from({ length: 120 }, (_, i) => {
    const institution = r.pick(on);
    return {
      identity: `reverse:${seed}:${i}`,
      row_number: i + 2,
      reverse_referral_date: day('2025-03-01', r.int(150)),
      patient_id: `p${r.int(80)}`,
      patient_key: `p${r.int(80)}`,
      medical_institution_id: institution,
      institution_code: null,
      institution_name: 'x',
      own_department: null,
      own_department_id: r.pick([...departments, null]),
      source_id: null,
    };
  });
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

let db: TestDatabase;
/** The test database as the sources take it. */
const readModels = () => db.kysely as unknown as Kysely<ReadModels>;
let store: EventStore;
let projections: { stop(): Promise<void> };
let last: Position | undefined;

async function append(tenantId: string, stream: string, events: { type: string; data: object }[]) {
  const metadata = {
    tenant_id: tenantId,
    account_id: null,
    correlation_id: randomUUID(),
    causation_id: null,
    schema_version: 1,
  };
  const result = await store.append(
    stream,
    events.map((e) => ({ ...e, metadata })),
    { expectedRevision: 'any' },
  );
  last = result.position;
}

beforeAll(async () => {
  db = await createTestDatabase();
  store = await createPostgresEventStore(db);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'area-reports-master-'));
  fs.writeFileSync(
    path.join(dir, 'm.csv'),
    masterRows.map((r, i) => `${codes[i]},${r[0]},,,${r[1]},,,,${r[2]},0,内科,,,開設`).join('\n') + '\n',
  );
  await importInstitutionMaster(db, path.join(dir, 'm.csv'));
  fs.rmSync(dir, { recursive: true, force: true });
  projections = startProjections({
    db,
    store,
    projections: [referralsProjection, visitRollupsProjection, communicationsProjection],
  });
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
  // Tenant A refers from 新宿区 (two institutions), 品川区, 静岡市葵区 and one institution not in the master.
  const a = importEvents(1, [
    institutions[0]!,
    institutions[1]!,
    institutions[2]!,
    institutions[3]!,
    randomUUID(),
    null,
  ]);
  await append(tenantA, a.stream, a.events);
  // Tenant B refers from 大阪市北区 and 新宿区 too: its figures must never reach tenant A's rows.
  const b = importEvents(2, [institutions[4]!, institutions[0]!]);
  await append(tenantB, b.stream, b.events);
  // Visits (and other communications that are not visits) of both tenants.
  const r = random(7);
  for (const [tenant, on] of [
    [tenantA, [institutions[0]!, institutions[2]!, institutions[3]!]],
    [tenantB, [institutions[4]!, institutions[0]!]],
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
    [referralsProjection.name, visitRollupsProjection.name, communicationsProjection.name],
    last!,
    120_000,
  );
  if (!reached) throw new Error('projections did not catch up');
});

afterAll(async () => {
  await projections?.stop();
  await store?.close();
  await db?.close();
});

const allKeys = [
  'prefecture',
  'city',
  'institution_count',
  'referral_count',
  'first_visit_count',
  'hospital_admission_count',
  'operation_count',
  'reverse_referral_count',
  'referring_institution_count',
  'visit_count',
];

const request = (
  tenantId: string,
  period: { from: string; to: string },
  unit: PeriodUnit,
  extra: Partial<ReportSourceRequest> = {},
): ReportSourceRequest => ({
  tenantId,
  buckets: periodBuckets(period, unit),
  comparisonBuckets: [],
  periodUnit: unit,
  ownDepartmentIds: [],
  itemKeys: new Set(allKeys),
  ...extra,
});

type Figures = Record<string, Record<string, Record<string, number>>>;

/**
 * The figures of every area straight from the facts (`rm.referrals`, its stays, `rm.reverse_referrals`,
 * the communications), bucketed by the same buckets: what the rollups must equal.
 */
async function rawFigures(tenantId: string, buckets: readonly ReportBucket[], ownDepartmentIds: string[] = []) {
  const b = sql`unnest(${sql.val(buckets.map((x) => x.key))}::text[], ${sql.val(buckets.map((x) => x.from))}::date[],
                       ${sql.val(buckets.map((x) => x.to))}::date[]) AS b(bucket, from_day, to_day)`;
  const area = sql`coalesce(lpad(m.prefecture_code::text, 2, '0'), '') || '|' || coalesce(m.city, '')`;
  const departmentFilter = (column: string) =>
    ownDepartmentIds.length > 0
      ? sql` AND coalesce(${sql.ref(column)}, '00000000-0000-0000-0000-000000000000'::uuid) = ANY(${sql.val(ownDepartmentIds)}::uuid[])`
      : sql``;
  const { rows: referrals } = await sql<{ id: string; bucket: string; key: string; n: number }>`
    WITH f AS (
      SELECT ${area} AS id, b.bucket, r.medical_institution_id, coalesce(r.first_visit, false) AS first_visit,
             EXISTS (SELECT 1 FROM rm.hospital_admissions a WHERE a.tenant_id = r.tenant_id AND a.referral_id = r.id) AS admitted,
             EXISTS (SELECT 1 FROM rm.hospital_admissions a WHERE a.tenant_id = r.tenant_id AND a.referral_id = r.id
                        AND a.kcode IS NOT NULL) AS operated
        FROM rm.referrals r JOIN ${b} ON r.referral_date BETWEEN b.from_day AND b.to_day
        LEFT JOIN ref.medical_institutions m ON m.id = r.medical_institution_id
       WHERE r.tenant_id = ${tenantId} AND r.medical_institution_id IS NOT NULL${departmentFilter('r.own_department_id')})
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
    SELECT ${area}, b.bucket, 'reverse_referral_count', count(*)::int
      FROM rm.reverse_referrals v JOIN ${b} ON v.reverse_referral_date BETWEEN b.from_day AND b.to_day
      LEFT JOIN ref.medical_institutions m ON m.id = v.medical_institution_id
     WHERE v.tenant_id = ${tenantId} AND v.medical_institution_id IS NOT NULL${departmentFilter('v.own_department_id')}
     GROUP BY 1, 2
    UNION ALL
    SELECT ${area}, b.bucket, 'visit_count', count(*)::int
      FROM rm.communications c JOIN ${b} ON c.acted_date BETWEEN b.from_day AND b.to_day
      LEFT JOIN ref.medical_institutions m ON m.id = c.medical_institution_id
     WHERE c.tenant_id = ${tenantId} AND c.communication_type IN ('visit', 'new_visit')
     GROUP BY 1, 2`.execute(readModels());
  const out: Figures = {};
  for (const r of referrals) {
    if (r.n === 0) continue;
    ((out[r.id] ??= {})[r.key] ??= {})[r.bucket] = r.n;
  }
  return out;
}

const figuresOf = (rows: ReportSourceRow[], which: 'figures' | 'comparisonFigures' = 'figures') => {
  const out: Figures = {};
  for (const row of rows) if (Object.keys(row[which]).length > 0) out[row.id] = row[which];
  return out;
};

describe('area report source', () => {
  it('answers one row per area of the tenant with its names and the master count, never another tenant’s', async () => {
    const rows = await areaReportsSource.load(
      readModels(),
      request(tenantA, { from: '2025-04-01', to: '2025-06-30' }, 'month'),
    );
    const byId = new Map(rows.map((r) => [r.id, r]));
    expect([...byId.keys()].sort()).toEqual(['13|新宿区', '13|品川区', '22|静岡市葵区', '|'].sort());
    expect(byId.get('13|新宿区')!.values).toEqual({ prefecture: '東京都', city: '新宿区', institution_count: 3 });
    expect(byId.get('22|静岡市葵区')!.values).toEqual({
      prefecture: '静岡県',
      city: '静岡市葵区',
      institution_count: 1,
    });
    // Institutions the master does not hold: no prefecture, no city.
    expect(byId.get('|')!.values).toMatchObject({ prefecture: null, city: null });
    // Tenant B's own rows hold its 大阪 area, and its 新宿区 figures differ from A's.
    const other = await areaReportsSource.load(
      readModels(),
      request(tenantB, { from: '2025-04-01', to: '2025-06-30' }, 'month'),
    );
    expect(other.map((r) => r.id).sort()).toEqual(['13|新宿区', '27|大阪市北区']);
    // A tenant without data has no rows.
    expect(
      await areaReportsSource.load(
        readModels(),
        request(randomUUID(), { from: '2025-04-01', to: '2025-06-30' }, 'month'),
      ),
    ).toEqual([]);
  });

  it('equals the figures counted from the raw facts, by month, by week (clipped too) and by 年度', async () => {
    for (const [period, unit] of [
      [{ from: '2025-03-01', to: '2025-07-31' }, 'month'],
      [{ from: '2025-03-12', to: '2025-07-20' }, 'month'],
      [{ from: '2025-03-19', to: '2025-05-15' }, 'week'],
      [{ from: '2025-01-01', to: '2025-12-31' }, 'quarter'],
      [{ from: '2024-04-01', to: '2026-03-31' }, 'fiscal_year'],
    ] as const) {
      const req = request(tenantA, period, unit);
      const rows = await areaReportsSource.load(readModels(), req);
      const raw = await rawFigures(tenantA, req.buckets);
      // Every figure family has counts in every area with facts (the comparison is not of empty sets).
      for (const key of [
        'referral_count',
        'first_visit_count',
        'operation_count',
        'reverse_referral_count',
        'visit_count',
      ])
        expect(Object.keys(raw['13|新宿区']![key]!).length, key).toBeGreaterThan(0);
      expect(figuresOf(rows), `${unit} ${period.from}`).toEqual(raw);
      expect(figuresOf(await areaReportsSource.load(readModels(), request(tenantB, period, unit)))).toEqual(
        await rawFigures(tenantB, req.buckets),
      );
    }
  });

  it('splits a week that crosses a month end into one bucket (its two segments)', async () => {
    // 2025-03-31 is a Monday: its week runs to Sunday 2025-04-06.
    const req = request(tenantA, { from: '2025-03-31', to: '2025-04-06' }, 'week');
    expect(req.buckets.map((b) => b.key)).toEqual(['2025-03-31']);
    const rows = await areaReportsSource.load(readModels(), req);
    expect(figuresOf(rows)).toEqual(await rawFigures(tenantA, req.buckets));
    // The same days as a month report split across two months sum to the same figures.
    const months = await areaReportsSource.load(
      readModels(),
      request(tenantA, { from: '2025-03-31', to: '2025-04-06' }, 'month'),
    );
    const total = (rs: ReportSourceRow[]) =>
      rs.reduce((n, r) => n + Object.values(r.figures.referral_count ?? {}).reduce((a, b) => a + b, 0), 0);
    expect(total(months)).toBe(total(rows));
  });

  it('narrows the referral figures to the own departments given, not the visits', async () => {
    const period = { from: '2025-03-01', to: '2025-07-31' };
    for (const unit of ['month', 'week'] as const) {
      const req = request(tenantA, period, unit, { ownDepartmentIds: [departments[0]!] });
      const rows = await areaReportsSource.load(readModels(), req);
      const expected = await rawFigures(tenantA, req.buckets, [departments[0]!]);
      const unnarrowed = await rawFigures(tenantA, req.buckets);
      // Visits are not per department: they stay as they are without the narrowing.
      for (const id of Object.keys(unnarrowed))
        if (unnarrowed[id]!.visit_count) (expected[id] ??= {}).visit_count = unnarrowed[id]!.visit_count;
      expect(figuresOf(rows)).toEqual(expected);
      expect(expected['13|新宿区']!.referral_count).not.toEqual(unnarrowed['13|新宿区']!.referral_count);
    }
  });

  it('loads the comparison buckets beside the period’s, and only the items asked', async () => {
    const req = request(tenantA, { from: '2025-06-01', to: '2025-07-31' }, 'month', {
      comparisonBuckets: periodBuckets({ from: '2025-03-01', to: '2025-04-30' }, 'month'),
      itemKeys: new Set(['city', 'hospital_admission_rate']),
    });
    const rows = await areaReportsSource.load(readModels(), req);
    const raw = await rawFigures(tenantA, req.buckets);
    const rawComparison = await rawFigures(tenantA, req.comparisonBuckets);
    const pick = (f: Figures) => {
      const out: Figures = {};
      for (const [id, keys] of Object.entries(f)) {
        const kept = Object.fromEntries(
          Object.entries(keys).filter(([k]) => k === 'referral_count' || k === 'hospital_admission_count'),
        );
        if (Object.keys(kept).length > 0) out[id] = kept;
      }
      return out;
    };
    expect(figuresOf(rows)).toEqual(pick(raw));
    expect(figuresOf(rows, 'comparisonFigures')).toEqual(pick(rawComparison));
    for (const row of rows) expect(Object.keys(row.values)).toEqual(['city']);
  });

  it('runs through the engine: bucket columns, totals, a filter on the prefecture and the sort', async () => {
    const definition = ReportDefinitionInput.parse({
      name: 'エリア',
      display_items: [{ item_key: 'prefecture' }, { item_key: 'city' }, { item_key: 'referral_count' }],
      filter_conditions: [{ item_key: 'prefecture', operator: 'eq', values: ['東京都'] }],
      sort_conditions: [{ item_key: 'referral_count', direction: 'desc' }],
      aggregation_settings: { period: { from: '2025-04-01', to: '2025-05-31' }, period_unit: 'month' },
    });
    const result = await runReport(areaReportsSource, readModels(), tenantA, definition, { page: 1, perPage: 100 });
    expect(result.columns.map((c) => c.key)).toEqual([
      'prefecture',
      'city',
      'referral_count@2025-04-01',
      'referral_count@2025-05-01',
      'referral_count',
    ]);
    const raw = await rawFigures(tenantA, periodBuckets({ from: '2025-04-01', to: '2025-05-31' }, 'month'));
    const total = (id: string) => Object.values(raw[id]?.referral_count ?? {}).reduce((a, b) => a + b, 0);
    const expected = ['13|新宿区', '13|品川区']
      .map((id) => ({ id, referral_count: total(id) }))
      .sort((a, b) => b.referral_count - a.referral_count || (a.id < b.id ? -1 : 1));
    expect(result.rows.map((r) => ({ id: r.id, referral_count: r.referral_count }))).toEqual(expected);
    expect(result.rows.every((r) => r.prefecture === '東京都')).toBe(true);
  });

  it('lists the static items of the kind', async () => {
    const items = await areaReportsSource.items(readModels(), tenantA);
    expect(items.map((i) => i.key)).toContain('institution_count');
    expect(items.filter((i) => i.periodic).map((i) => i.key)).toContain('visit_count');
    // The projections its tables belong to, for the query service's read-your-writes wait.
    expect(areaReportsSource.reads).toEqual([referralsProjection.name, visitRollupsProjection.name]);
  });
});
