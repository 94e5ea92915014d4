import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { featureKeys, maxUnknownDepartments } from '@renkei/contracts';
import { formatPosition, streamId, type EventStore } from '@renkei/event-store';
import type { TestAuth } from '@renkei/service-kit/testing';
import { startQueryTest, type QueryTest } from '../testing/query-test.ts';

let t: QueryTest;
let store: EventStore;
let app: FastifyInstance;
let testAuth: TestAuth;
const tenant = randomUUID();
const surgery = randomUUID();

beforeAll(async () => {
  t = await startQueryTest({
    master: { csv: '2210210021,みなと内科,,,静岡県静岡市葵区追手町1,,,,診療所,0,内科,,,開設\n' },
    live: true,
  });
  ({ store, app, testAuth } = t);
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

/**
 * An import whose rows name departments as written, the worker having matched '外科' to the tenant's
 * own department (own_department_id) and nothing else; reverse referrals are given in a second chunk.
 */
async function importWithDepartments(departments: (string | null)[], reverse: (string | null)[] = []) {
  const importId = randomUUID();
  const chunk = { import_id: importId, failed_row_count: 0, errors: [], rollups_deferred: true };
  const own = (name: string | null) => (name === '外科' ? surgery : null);
  const result = await store.append(
    streamId('referral_data_import', importId),
    [
      {
        type: 'ReferralDataImportRequested',
        data: { import_id: importId, import_type: 'referral', filename: '紹介.csv', stored_path: '/x', mapping: null },
        metadata: metadata(tenant),
      },
      {
        type: 'ReferralsImported',
        data: {
          ...chunk,
          chunk: 0,
          imported_row_count: departments.length,
          referrals: departments.map((name, i) => ({
            identity: `referral:${importId}:${i}`,
            row_number: i + 2,
            referral_date: '2024-04-01',
            patient_id: `p${i}`,
            patient_key: `p${i}`,
            medical_institution_id: null,
            institution_code: null,
            institution_name: '不明医院',
            from_department: null,
            from_doctor: null,
            to_department: name,
            own_department_id: own(name),
            to_doctor: null,
            purpose: null,
            first_visit: true,
            source_id: null,
          })),
        },
        metadata: metadata(tenant),
      },
      {
        type: 'ReverseReferralsImported',
        data: {
          ...chunk,
          chunk: 1,
          imported_row_count: reverse.length,
          reverse_referrals: reverse.map((name, i) => ({
            identity: `reverse:${importId}:${i}`,
            row_number: i + 2,
            reverse_referral_date: '2024-04-02',
            patient_id: `p${i}`,
            patient_key: `p${i}`,
            medical_institution_id: null,
            institution_code: null,
            institution_name: '不明医院',
            own_department: name,
            own_department_id: own(name),
            source_id: null,
          })),
        },
        metadata: metadata(tenant),
      },
    ],
    { expectedRevision: 'no_stream' },
  );
  return { importId, position: formatPosition(result.position) };
}

async function get(url: string, position?: string) {
  const token = await testAuth.token({
    tenantId: tenant,
    accountId: randomUUID(),
    role: 'owner',
    features: [...featureKeys],
  });
  return app.inject({
    method: 'GET',
    url,
    headers: { authorization: `Bearer ${token}`, ...(position ? { 'x-min-position': position } : {}) },
  });
}

describe('data upload records', () => {
  it('count the rows whose department names none of the tenant’s own and list the names, most rows first', async () => {
    const { importId, position } = await importWithDepartments(
      ['外科', '整形外科', '整形外科', ' ', null, '形成外科', '整形外科'],
      ['眼科', '外科'],
    );
    const response = await get(`/api/data_uploads/${importId}`, position);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toMatchObject({
      unknown_department_row_count: 5,
      unknown_departments: [
        { name: '整形外科', row_count: 3 },
        { name: '形成外科', row_count: 1 },
        { name: '眼科', row_count: 1 },
      ],
    });
    const list = (await get('/api/data_uploads')).json();
    expect(list.data.find((r: { id: string }) => r.id === importId)).toMatchObject({ unknown_department_row_count: 5 });
  });

  it(`list at most ${maxUnknownDepartments} names while counting every row`, async () => {
    const names = Array.from({ length: maxUnknownDepartments + 10 }, (_, i) => `科${String(i).padStart(3, '0')}`);
    const { importId, position } = await importWithDepartments([...names, '科000']);
    const body = (await get(`/api/data_uploads/${importId}`, position)).json();
    expect(body.unknown_department_row_count).toBe(names.length + 1);
    expect(body.unknown_departments).toHaveLength(maxUnknownDepartments);
    expect(body.unknown_departments[0]).toEqual({ name: '科000', row_count: 2 });
  });

  it('give a file-level failure (the worker’s row 0) no row number', async () => {
    const importId = randomUUID();
    const message = '様式1（FF1）ファイルとして読めません。タブ区切り17列を想定しています。';
    const result = await store.append(
      streamId('referral_data_import', importId),
      [
        {
          type: 'ReferralDataImportRequested',
          data: { import_id: importId, import_type: 'ff1_file', filename: 'EFn.txt', stored_path: '/x', mapping: null },
          metadata: metadata(tenant),
        },
        {
          type: 'ReferralDataImportFinished',
          data: {
            import_id: importId,
            status: 'failed',
            imported_row_count: 0,
            failed_row_count: 0,
            unprocessed_row_count: 3,
            abortion_row_number: 0,
            error: { row_number: 0, message },
          },
          metadata: metadata(tenant),
        },
      ],
      { expectedRevision: 'no_stream' },
    );
    const response = await get(`/api/data_uploads/${importId}`, formatPosition(result.position));
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toMatchObject({ status: 'failed', error_messages: [{ row_number: null, message }] });
  });

  it('mark an upload being withdrawn, and leave it out of the history and its detail once withdrawn', async () => {
    const { importId, position } = await importWithDepartments(['外科']);
    const listed = await get('/api/data_uploads?per_page=100', position);
    const row = listed.json<{ data: { id: string; withdrawing: boolean }[] }>().data.find((r) => r.id === importId);
    expect(row?.withdrawing).toBe(false);
    const append = async (type: string, data: object) =>
      formatPosition(
        (
          await store.append(
            streamId('referral_data_withdrawal', importId),
            [{ type, data, metadata: metadata(tenant) }],
            { expectedRevision: 'any' },
          )
        ).position,
      );
    // Asked: still listed, as being withdrawn (its rows still count), and out of the data sync status.
    const asked = await append('ReferralDataImportWithdrawalRequested', {
      import_id: importId,
      import_type: 'referral',
    });
    const during = await get(`/api/data_uploads/${importId}`, asked);
    expect(during.statusCode, during.body).toBe(200);
    expect(during.json()).toMatchObject({ id: importId, withdrawing: true });
    const statuses = await get('/api/data_sync_statuses', asked);
    expect(JSON.stringify(statuses.json())).not.toContain(importId);
    // Its end applied: gone from the history and its detail.
    const done = await append('ReferralDataImportWithdrawalCompleted', { import_id: importId });
    const after = await get('/api/data_uploads?per_page=100', done);
    expect(after.json<{ data: { id: string }[] }>().data.map((r) => r.id)).not.toContain(importId);
    expect((await get(`/api/data_uploads/${importId}`, done)).statusCode).toBe(404);
  });

  it('list the row errors in the file’s order, a chunk’s warnings among its errors', async () => {
    const importId = randomUUID();
    const errors = [
      { row_number: 5, message: '5行目: 紹介日「R6.13.40」を日付として読めません' },
      { row_number: 3, message: '3行目: （警告）医療機関コード「1234567890」の検証番号が正しくありません' },
    ];
    const result = await store.append(
      streamId('referral_data_import', importId),
      [
        {
          type: 'ReferralDataImportRequested',
          data: {
            import_id: importId,
            import_type: 'referral',
            filename: '紹介.csv',
            stored_path: '/x',
            mapping: null,
          },
          metadata: metadata(tenant),
        },
        {
          type: 'ReferralsImported',
          data: {
            import_id: importId,
            chunk: 0,
            imported_row_count: 0,
            failed_row_count: 1,
            errors,
            rollups_deferred: true,
            referrals: [],
          },
          metadata: metadata(tenant),
        },
      ],
      { expectedRevision: 'no_stream' },
    );
    const body = (await get(`/api/data_uploads/${importId}`, formatPosition(result.position))).json();
    expect(body.error_messages).toEqual([errors[1], errors[0]]);
  });
});
