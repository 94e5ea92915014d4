import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { featureKeys } from '@renkei/contracts';
import { createTestDatabase, type TestDatabase } from '@renkei/db';
import { createPostgresEventStore, readStreamOrEmpty, streamId, type EventStore } from '@renkei/event-store';
import type { TestAuth } from '@renkei/service-kit/testing';
import { buildTestCommandApp, injectAs, tenantEventCount } from '../testing.ts';

let db: TestDatabase;
let store: EventStore;
let app: FastifyInstance;
let testAuth: TestAuth;
let dataDir: string;

beforeAll(async () => {
  db = await createTestDatabase();
  store = await createPostgresEventStore(db);
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'renkei-data-upload-'));
  process.env.RENKEI_DATA_DIR = dataDir;
  ({ app, testAuth } = await buildTestCommandApp(db, store));
});

afterAll(async () => {
  await app?.close();
  await store?.close();
  await db?.close();
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
});

function multipart(fields: Record<string, string>, content: Buffer) {
  const boundary = '----renkei' + randomUUID();
  const parts = Object.entries(fields).map(
    ([name, value]) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`,
  );
  return {
    boundary,
    payload: Buffer.concat([
      Buffer.from(
        `${parts.join('')}--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="紹介.csv"\r\nContent-Type: text/csv\r\n\r\n`,
      ),
      content,
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]),
  };
}

const csv = Buffer.from('紹介年月日,カルテ番号,紹介元\r\nR6.4.1,123,みなと内科\r\n');

async function upload(
  tenantId: string,
  fields: Record<string, string>,
  role: 'owner' | 'member' = 'owner',
  headers: Record<string, string> = {},
  content: Buffer = csv,
) {
  const token = await testAuth.token({ tenantId, accountId: randomUUID(), role, features: [...featureKeys] });
  const body = multipart(fields, content);
  return app.inject({
    method: 'POST',
    url: '/api/data_uploads',
    payload: body.payload,
    headers: {
      'content-type': `multipart/form-data; boundary=${body.boundary}`,
      authorization: `Bearer ${token}`,
      ...headers,
    },
  });
}

describe('POST /data_uploads retries', () => {
  it('opens one upload for retries with one Idempotency-Key, sequential or concurrent; another file or type is a 422', async () => {
    const tenantId = randomUUID();
    const key = { 'idempotency-key': 'upload-1' };
    const first = await upload(tenantId, { import_type: 'referral' }, 'owner', key);
    expect(first.statusCode, first.body).toBe(202);
    const events = await tenantEventCount(db, tenantId);
    const retries = await Promise.all(
      Array.from({ length: 3 }, () => upload(tenantId, { import_type: 'referral' }, 'owner', key)),
    );
    for (const r of retries)
      expect({ status: r.statusCode, body: r.json() }).toEqual({ status: first.statusCode, body: first.json() });
    expect(await tenantEventCount(db, tenantId)).toBe(events);
    expect(fs.readdirSync(path.join(dataDir, 'imports', tenantId))).toEqual([first.json().id]);
    const otherType = await upload(tenantId, { import_type: 'reverse_referral' }, 'owner', key);
    expect(otherType.statusCode).toBe(422);
    const otherFile = await upload(tenantId, { import_type: 'referral' }, 'owner', key, Buffer.from('a,b\r\n1,2\r\n'));
    expect(otherFile.statusCode).toBe(422);
    expect(await tenantEventCount(db, tenantId)).toBe(events);
  });
});

describe('POST /data_uploads', () => {
  it('keeps the file and opens the import with the saved mapping it names', async () => {
    const tenantId = randomUUID();
    const profile = {
      id: randomUUID(),
      import_type: 'referral',
      name: '電子カルテ',
      mapping: { 紹介日: '紹介年月日', 患者ID: 'カルテ番号', 紹介元医療機関名: '紹介元' },
    };
    const saved = await injectAs(
      { app, testAuth },
      { tenantId, accountId: randomUUID(), role: 'owner' },
      'PUT',
      '/api/data_uploads/mapping_profiles',
      {
        profiles: [profile],
      },
    );
    expect(saved.statusCode, saved.body).toBe(200);
    expect(saved.json()).toEqual({ profiles: [profile], version: 0 });

    const res = await upload(tenantId, { import_type: 'referral', mapping_profile_id: profile.id });
    expect(res.statusCode, res.body).toBe(202);
    expect(res.json()).toMatchObject({
      status: 'waiting',
      import_type: 'referral',
      filename: '紹介.csv',
      new_record_count: 0,
    });
    const [requested] = await readStreamOrEmpty(store, streamId('referral_data_import', res.json().id), tenantId);
    expect(requested!.data).toMatchObject({ mapping: profile.mapping });
    expect(fs.readFileSync((requested!.data as { stored_path: string }).stored_path)).toEqual(csv);
  });

  it('guards the mapping profiles with If-Match (their version, -1 before the first save)', async () => {
    const tenantId = randomUUID();
    const owner = { tenantId, accountId: randomUUID(), role: 'owner' as const };
    const put = (profiles: unknown[], ifMatch: string) =>
      injectAs(
        { app, testAuth },
        owner,
        'PUT',
        '/api/data_uploads/mapping_profiles',
        { profiles },
        { 'if-match': ifMatch },
      );
    const profile = {
      id: randomUUID(),
      import_type: 'referral',
      name: '電子カルテ',
      mapping: { 紹介日: '紹介年月日', 患者ID: 'カルテ番号', 紹介元医療機関名: '紹介元' },
    };
    const first = await put([profile], '-1');
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json().version).toBe(0);
    expect(first.headers.etag).toBe('"0"');
    const before = await tenantEventCount(db, tenantId);
    expect((await put([], '-1')).statusCode).toBe(409);
    expect((await put([], '"987654"')).statusCode).toBe(409);
    expect(await tenantEventCount(db, tenantId)).toBe(before);
    const fresh = await put([], '"0"');
    expect(fresh.statusCode, fresh.body).toBe(200);
    expect(fresh.json().version).toBe(1);
  });

  it('refuses members, an unknown mapping and an unknown type, keeping nothing', async () => {
    const tenantId = randomUUID();
    expect((await upload(tenantId, { import_type: 'referral' }, 'member')).statusCode).toBe(403);
    const unknown = await upload(tenantId, { import_type: 'referral', mapping_profile_id: randomUUID() });
    expect(unknown.statusCode).toBe(422);
    expect(unknown.json().errors).toEqual([{ field: 'mapping_profile_id', message: '列の対応付けが見つかりません' }]);
    const bad = await upload(tenantId, { import_type: 'x' });
    expect(bad.statusCode).toBe(422);
    expect(await tenantEventCount(db, tenantId)).toBe(0);
    // The refused upload's directory is gone with its file.
    expect(fs.readdirSync(path.join(dataDir, 'imports', tenantId))).toEqual([]);
  });
});

describe('POST /data_uploads size limits', () => {
  // Small limits configured the way a deployment sets them, so the test writes bytes, not gigabytes.
  const mib = 1024 * 1024;
  let limited: Awaited<ReturnType<typeof buildTestCommandApp>>;
  beforeAll(async () => {
    process.env.RENKEI_DATA_UPLOAD_LIST_MAX_BYTES = String(mib);
    process.env.RENKEI_DATA_UPLOAD_DPC_MAX_BYTES = String(3 * mib);
    try {
      limited = await buildTestCommandApp(db, store);
    } finally {
      delete process.env.RENKEI_DATA_UPLOAD_LIST_MAX_BYTES;
      delete process.env.RENKEI_DATA_UPLOAD_DPC_MAX_BYTES;
    }
  });
  afterAll(() => limited?.app.close());

  async function send(tenantId: string, importType: string, content: Buffer, typeAfterFile = false) {
    const token = await limited.testAuth.token({
      tenantId,
      accountId: randomUUID(),
      role: 'owner',
      features: [...featureKeys],
    });
    const boundary = '----renkei' + randomUUID();
    const field = `--${boundary}\r\nContent-Disposition: form-data; name="import_type"\r\n\r\n${importType}\r\n`;
    const file = Buffer.concat([
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="data.txt"\r\nContent-Type: text/plain\r\n\r\n`,
      ),
      content,
      Buffer.from('\r\n'),
    ]);
    const end = Buffer.from(`--${boundary}--\r\n`);
    const payload = typeAfterFile
      ? Buffer.concat([file, Buffer.from(field), end])
      : Buffer.concat([Buffer.from(field), file, end]);
    return limited.app.inject({
      method: 'POST',
      url: '/api/data_uploads',
      payload,
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, authorization: `Bearer ${token}` },
    });
  }

  it('holds the two lists to their limit and lets the DPC files be larger, naming the limit', async () => {
    const tenantId = randomUUID();
    const bytes = (n: number) => Buffer.alloc(n, 'a');
    const list = await send(tenantId, 'referral', bytes(mib + 1));
    expect(list.statusCode, list.body).toBe(413);
    expect(list.json().message).toBe('ファイルが大きすぎます（上限 1 MB）。');
    expect((await send(tenantId, 'reverse_referral', bytes(mib + 1))).statusCode).toBe(413);
    // The same size is accepted as a DPC file, up to the DPC limit and no further.
    for (const type of ['ff1_file', 'd_file', 'outpatient_ef_file', 'hospital_admission_ef_file']) {
      const ok = await send(tenantId, type, bytes(3 * mib));
      expect(ok.statusCode, `${type}: ${ok.body}`).toBe(202);
      const over = await send(tenantId, type, bytes(3 * mib + 1));
      expect(over.statusCode).toBe(413);
      expect(over.json().message).toBe('ファイルが大きすぎます（上限 3 MB）。');
    }
    expect((await send(tenantId, 'referral', bytes(mib))).statusCode).toBe(202);
    // Four DPC files and one list opened; nothing of the refused ones is kept.
    expect(fs.readdirSync(path.join(dataDir, 'imports', tenantId))).toHaveLength(5);
    expect(fs.readdirSync(path.join(dataDir, 'imports', '.staging'))).toEqual([]);
  });

  it('checks the limit of the type sent after the file', async () => {
    const tenantId = randomUUID();
    const late = await send(tenantId, 'referral', Buffer.alloc(mib + 1, 'a'), true);
    expect(late.statusCode, late.body).toBe(413);
    expect(await tenantEventCount(db, tenantId)).toBe(0);
    expect((await send(tenantId, 'd_file', Buffer.alloc(mib + 1, 'a'), true)).statusCode).toBe(202);
  });
});

describe('DELETE /data_uploads/{id}', () => {
  /** What the worker appends when it has read the whole file. */
  const finish = (tenantId: string, importId: string) =>
    store.append(
      streamId('referral_data_import', importId),
      [
        {
          id: randomUUID(),
          type: 'ReferralDataImportFinished',
          data: {
            import_id: importId,
            status: 'completed',
            imported_row_count: 1,
            failed_row_count: 0,
            unprocessed_row_count: 0,
            abortion_row_number: null,
            error: null,
          },
          metadata: {
            tenant_id: tenantId,
            account_id: null,
            correlation_id: importId,
            causation_id: null,
            schema_version: 1,
          },
        },
      ],
      { expectedRevision: 'any' },
    );
  const withdraw = (tenantId: string, id: string, role: 'owner' | 'member' = 'owner') =>
    injectAs(
      { app, testAuth },
      { tenantId, accountId: randomUUID(), role, features: [...featureKeys] },
      'DELETE',
      `/api/data_uploads/${id}`,
    );

  it('withdraws a finished list once, answering 404 after, for another tenant and for an unknown id', async () => {
    const tenantId = randomUUID();
    const opened = await upload(tenantId, { import_type: 'referral' });
    expect(opened.statusCode, opened.body).toBe(202);
    const { id } = opened.json<{ id: string }>();
    await finish(tenantId, id);
    const before = await tenantEventCount(db, tenantId);

    expect((await withdraw(randomUUID(), id)).statusCode).toBe(404);
    expect((await withdraw(tenantId, id, 'member')).statusCode).toBe(403);
    expect(await tenantEventCount(db, tenantId)).toBe(before);

    const done = await withdraw(tenantId, id);
    expect(done.statusCode, done.body).toBe(204);
    expect(done.headers['x-position']).toBeDefined();
    const events = await readStreamOrEmpty(store, streamId('referral_data_withdrawal', id), tenantId);
    expect(events.map((e) => [e.type, e.data])).toEqual([
      ['ReferralDataImportWithdrawalRequested', { import_id: id, import_type: 'referral' }],
    ]);

    expect((await withdraw(tenantId, id)).statusCode).toBe(404);
    expect((await withdraw(tenantId, randomUUID())).statusCode).toBe(404);
    expect(await tenantEventCount(db, tenantId)).toBe(before + 1);
  });

  it('refuses an import still running and a D or EF file with a 409 that says why, writing nothing', async () => {
    const tenantId = randomUUID();
    const running = (await upload(tenantId, { import_type: 'referral' })).json<{ id: string }>().id;
    const dFile = await upload(tenantId, { import_type: 'd_file' }, 'owner', {}, Buffer.from('x\n'));
    expect(dFile.statusCode, dFile.body).toBe(202);
    const d = dFile.json<{ id: string }>().id;
    await finish(tenantId, d);
    const before = await tenantEventCount(db, tenantId);

    const early = await withdraw(tenantId, running);
    expect(early.statusCode).toBe(409);
    expect(early.json<{ message: string }>().message).toContain('処理中');
    const dpc = await withdraw(tenantId, d);
    expect(dpc.statusCode).toBe(409);
    expect(dpc.json<{ message: string }>().message).toContain('D・EFファイル');
    expect(await tenantEventCount(db, tenantId)).toBe(before);
  });
});
