import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { featureKeys } from '@renkei/contracts';
import type { TestDatabase } from '@renkei/db';
import { formatPosition, streamId, type EventStore } from '@renkei/event-store';
import { buildInstitutionCode, institutionIdFromCode } from '@renkei/institution-master';
import type { TestAuth } from '@renkei/service-kit/testing';
import { startQueryTest, type QueryTest } from '../testing/query-test.ts';

let t: QueryTest;
let db: TestDatabase;
let store: EventStore;
let app: FastifyInstance;
let testAuth: TestAuth;
const code = buildInstitutionCode({ prefectureCode: 22, scoreTable: 1, districtNumber: 2, institutionNumber: 1002 });
const clinic = institutionIdFromCode(code);
const tenant = randomUUID();

beforeAll(async () => {
  t = await startQueryTest({
    master: { csv: `${code},みなと内科,,,静岡県静岡市葵区追手町1,,,,診療所,0,内科,,,開設\n` },
    live: true,
  });
  ({ db, store, app, testAuth } = t);
});

afterAll(async () => {
  await t?.close();
});

const metadata = (tenantId: string) => ({
  tenant_id: tenantId,
  account_id: null,
  correlation_id: randomUUID(),
  causation_id: null,
  schema_version: 1,
});

/** An import of referrals from institutions the master did not match (name → dates) and one reverse referral. */
async function importUnmatched(tenantId: string, referrals: [string, string][], reverse: [string, string][] = []) {
  const importId = randomUUID();
  const chunk = { import_id: importId, chunk: 0, failed_row_count: 0, errors: [] };
  const m = metadata(tenantId);
  const result = await store.append(
    streamId('referral_data_import', importId),
    [
      {
        type: 'ReferralDataImportRequested',
        data: { import_id: importId, import_type: 'referral', filename: '紹介.csv', stored_path: '/x', mapping: null },
        metadata: m,
      },
      {
        type: 'ReferralsImported',
        data: {
          ...chunk,
          imported_row_count: referrals.length,
          referrals: referrals.map(([name, date], i) => ({
            identity: `referral:${importId}:${i}`,
            row_number: i + 2,
            referral_date: date,
            patient_id: `p${i}`,
            patient_key: `p${i}`,
            medical_institution_id: null,
            institution_code: null,
            institution_name: name,
            from_department: null,
            from_doctor: null,
            to_department: null,
            own_department_id: null,
            to_doctor: null,
            purpose: null,
            first_visit: true,
            source_id: null,
          })),
        },
        metadata: m,
      },
      {
        type: 'ReverseReferralsImported',
        data: {
          ...chunk,
          chunk: 1,
          imported_row_count: reverse.length,
          reverse_referrals: reverse.map(([name, date], i) => ({
            identity: `reverse:${importId}:${i}`,
            row_number: i + 2,
            reverse_referral_date: date,
            patient_id: `p${i}`,
            patient_key: `p${i}`,
            medical_institution_id: null,
            institution_code: null,
            institution_name: name,
            own_department: null,
            own_department_id: null,
            source_id: null,
          })),
        },
        metadata: m,
      },
    ],
    { expectedRevision: 'no_stream' },
  );
  return formatPosition(result.position);
}

async function match(tenantId: string, name: string) {
  const result = await store.append(
    streamId('referral_institution_matches', tenantId),
    [
      {
        type: 'ReferralInstitutionMatched',
        data: { institution_code: null, institution_name: name, medical_institution_id: clinic },
        metadata: metadata(tenantId),
      },
    ],
    { expectedRevision: 'any' },
  );
  return formatPosition(result.position);
}

async function setAside(tenantId: string, name: string, dismissed: boolean) {
  const result = await store.append(
    streamId('referral_institution_dismissals', tenantId),
    [
      {
        type: dismissed ? 'UnmatchedInstitutionDismissed' : 'UnmatchedInstitutionRestored',
        data: { institution_code: null, institution_name: name },
        metadata: metadata(tenantId),
      },
    ],
    { expectedRevision: 'any' },
  );
  return formatPosition(result.position);
}

async function get(url: string, tenantId = tenant, position?: string) {
  const token = await testAuth.token({ tenantId, accountId: randomUUID(), role: 'owner', features: [...featureKeys] });
  return app.inject({
    method: 'GET',
    url,
    headers: { authorization: `Bearer ${token}`, ...(position ? { 'x-min-position': position } : {}) },
  });
}

const rollup = async () => {
  const { rows } = await sql<{ referrals: number; reverse: number }>`
    SELECT coalesce(sum(referral_count), 0)::int AS referrals, coalesce(sum(reverse_referral_count), 0)::int AS reverse
      FROM rm.referral_monthly_rollups WHERE tenant_id = ${tenant} AND medical_institution_id = ${clinic}`.execute(
    db.kysely,
  );
  return rows[0];
};

describe('unmatched institutions and hand matches', () => {
  it('lists the tenant’s unmatched institutions; a match moves their rows into the institution’s referrals and rollups, and later imports follow it', async () => {
    const other = randomUUID();
    await importUnmatched(other, [['不明医院', '2024-04-01']]);
    const position = await importUnmatched(
      tenant,
      [
        ['不明医院', '2024-04-01'],
        ['不明医院', '2024-05-09'],
        ['どこかの医院', '2024-04-02'],
      ],
      [['不明医院', '2024-06-01']],
    );
    const before = await get('/api/data_uploads/unmatched_institutions', tenant, position);
    expect(before.statusCode, before.body).toBe(200);
    expect(before.json()).toEqual({
      data: [
        {
          institution_code: null,
          institution_name: '不明医院',
          referral_count: 2,
          reverse_referral_count: 1,
          last_date: '2024-06-01',
        },
        {
          institution_code: null,
          institution_name: 'どこかの医院',
          referral_count: 1,
          reverse_referral_count: 0,
          last_date: '2024-04-02',
        },
      ],
      meta: { total_count: 2, page: 1, per_page: 20, total_pages: 1 },
    });
    expect((await get('/api/data_uploads/unmatched_institutions?per_page=1&page=2')).json().data).toHaveLength(1);
    expect((await get('/api/data_uploads/unmatched_institutions?per_page=0')).statusCode).toBe(422);
    expect(await rollup()).toEqual({ referrals: 0, reverse: 0 });

    const matched = await match(tenant, '不明医院');
    const after = await get('/api/data_uploads/unmatched_institutions', tenant, matched);
    expect(after.json().data.map((r: { institution_name: string }) => r.institution_name)).toEqual(['どこかの医院']);
    expect(await rollup()).toEqual({ referrals: 2, reverse: 1 });
    const referrals = await get(`/api/medical_institutions/${clinic}/referrals`, tenant, matched);
    expect(referrals.json().meta.total_count).toBe(2);
    // The other tenant's rows of the same name stay unmatched.
    expect((await get('/api/data_uploads/unmatched_institutions', other, matched)).json().data).toHaveLength(1);

    const later = await importUnmatched(tenant, [['不明医院', '2024-07-01']]);
    const imports = await get('/api/data_uploads?import_type=referral', tenant, later);
    expect(imports.json().data[0]).toMatchObject({ unmatched_row_count: 0, unmatched_institutions: [] });
    expect(await rollup()).toEqual({ referrals: 3, reverse: 1 });
  });

  it('leaves out what an owner set aside, lists it on request, and puts it back; its rows stay unattributed', async () => {
    const tenantId = randomUUID();
    await importUnmatched(tenantId, [
      ['不明', '2024-04-01'],
      ['不明', '2024-04-02'],
      ['さくら医院', '2024-04-03'],
    ]);
    const names = (body: { data: { institution_name: string }[] }) => body.data.map((r) => r.institution_name);
    const aside = await setAside(tenantId, '不明', true);
    const left = await get('/api/data_uploads/unmatched_institutions', tenantId, aside);
    expect(names(left.json())).toEqual(['さくら医院']);
    expect(left.json().meta.total_count).toBe(1);
    const listed = await get('/api/data_uploads/unmatched_institutions?dismissed=true', tenantId, aside);
    expect(listed.json()).toMatchObject({
      data: [{ institution_name: '不明', referral_count: 2, last_date: '2024-04-02' }],
      meta: { total_count: 1 },
    });
    // Another tenant's 不明 is its own to set aside.
    const other = randomUUID();
    const imported = await importUnmatched(other, [['不明', '2024-04-01']]);
    expect(names((await get('/api/data_uploads/unmatched_institutions', other, imported)).json())).toEqual(['不明']);

    const back = await setAside(tenantId, '不明', false);
    expect(names((await get('/api/data_uploads/unmatched_institutions', tenantId, back)).json())).toEqual([
      '不明',
      'さくら医院',
    ]);
    expect((await get('/api/data_uploads/unmatched_institutions?dismissed=true', tenantId, back)).json().data).toEqual(
      [],
    );
    expect((await get('/api/data_uploads/unmatched_institutions?dismissed=maybe', tenantId)).statusCode).toBe(422);
  });
});
