import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { featureKeys } from '@renkei/contracts';
import { createTestDatabase, type TestDatabase } from '@renkei/db';
import { createPostgresEventStore, newEventMetadata, streamId, type EventStore } from '@renkei/event-store';
import { createPostgresFileStorage, verifyFileUrl, type FileStorage } from '@renkei/file-storage';
import { generateInstitutionMaster, importInstitutionMaster } from '@renkei/institution-master';
import type { TestAuth } from '@renkei/service-kit/testing';
import { buildTestCommandApp, tenantEventCount } from '../testing.ts';

let db: TestDatabase;
let store: EventStore;
let storage: FileStorage;
let app: FastifyInstance;
let testAuth: TestAuth;
let institution: string;
let dataDir: string;
const key = randomBytes(32);
const maxBytes = 64 * 1024;

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'renkei-uploaded-files-'));
  process.env.RENKEI_DATA_DIR = dataDir;
  db = await createTestDatabase();
  store = await createPostgresEventStore(db);
  storage = createPostgresFileStorage(db);
  ({ app, testAuth } = await buildTestCommandApp(db, store, { fileUrlKey: key, maxUploadedFileBytes: maxBytes }));
  await generateInstitutionMaster(path.join(dataDir, 'm.csv'), { count: 1, seed: 3 });
  await importInstitutionMaster(db, path.join(dataDir, 'm.csv'));
  const { rows } = await sql<{ id: string }>`SELECT id FROM ref.medical_institutions`.execute(db.kysely);
  institution = rows[0]!.id;
});

afterAll(async () => {
  await app?.close();
  await store?.close();
  await db?.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

interface Caller {
  tenantId: string;
  accountId: string;
}

async function newTenant(): Promise<Caller> {
  const tenantId = randomUUID();
  const accountId = randomUUID();
  await store.append(
    streamId('account', accountId),
    [
      {
        type: 'AccountRegistered',
        data: {
          account_id: accountId,
          tenant_id: tenantId,
          username: '連携 花子',
          email: null,
          login_name: null,
          role: 'member',
          cs_account: false,
        },
        metadata: newEventMetadata(tenantId),
      },
    ],
    { expectedRevision: 'no_stream' },
  );
  return { tenantId, accountId };
}

const jpeg = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.from('JFIF photo bytes')]);
const html = Buffer.from('<html><script>alert(1)</script></html>');

async function upload(
  caller: Caller,
  filename: string,
  content: Buffer,
  contentType = 'image/jpeg',
  headers: Record<string, string> = {},
) {
  const boundary = '----renkei' + randomUUID();
  const payload = Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: ${contentType}\r\n\r\n`,
    ),
    content,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  const token = await testAuth.token({ ...caller, features: [...featureKeys] });
  return app.inject({
    method: 'POST',
    url: '/api/uploaded_files',
    payload,
    headers: {
      'content-type': `multipart/form-data; boundary=${boundary}`,
      authorization: `Bearer ${token}`,
      ...headers,
    },
  });
}

async function call(caller: Caller, method: 'POST' | 'PUT' | 'DELETE', url: string, payload?: object) {
  const token = await testAuth.token({ ...caller, features: [...featureKeys] });
  return app.inject({
    method,
    url,
    headers: { authorization: `Bearer ${token}` },
    ...(payload ? { payload } : {}),
  });
}

const visit = { communication_type: 'visit', acted_date: '2026-03-31', story: '院長と面談' };

describe('POST /uploaded_files', () => {
  it('stores the file with the type of its bytes and answers id, signed url and filename', async () => {
    const t = await newTenant();
    const res = await upload(t, '名刺.jpg', jpeg);
    expect(res.statusCode, res.body).toBe(201);
    const body = res.json<{ id: string; url: string; filename: string }>();
    expect(body.filename).toBe('名刺.jpg');
    const url = new URL(body.url, 'http://x');
    expect(url.pathname).toBe(`/files/${body.id}`);
    expect(
      verifyFileUrl(
        key,
        { tenantId: t.tenantId, id: body.id },
        url.searchParams.get('expires')!,
        url.searchParams.get('signature')!,
      ),
    ).toBe(true);
    const [stored] = await storage.find(t.tenantId, [body.id]);
    expect(stored).toMatchObject({ contentType: 'image/jpeg', size: jpeg.length, owner: null, createdBy: t.accountId });
    // Another tenant does not see it.
    expect(await storage.find(randomUUID(), [body.id])).toEqual([]);
  });

  it('stores one file for retries under one Idempotency-Key', async () => {
    const t = await newTenant();
    const first = await upload(t, 'a.jpg', jpeg, 'image/jpeg', { 'idempotency-key': 'photo-1' });
    const retry = await upload(t, 'a.jpg', jpeg, 'image/jpeg', { 'idempotency-key': 'photo-1' });
    expect(first.statusCode, first.body).toBe(201);
    expect(retry.json()).toEqual(first.json());
    const { rows } = await sql<{ n: string }>`SELECT count(*) AS n FROM files.stored_files
      WHERE tenant_id = ${t.tenantId}`.execute(db.kysely);
    expect(Number(rows[0]!.n)).toBe(1);
    const other = await upload(t, 'b.jpg', jpeg, 'image/jpeg', { 'idempotency-key': 'photo-1' });
    expect(other.statusCode).toBe(422);
  });

  it('trusts the bytes, not the name or the type sent: HTML named .jpg is stored as a download', async () => {
    const t = await newTenant();
    const res = await upload(t, 'photo.jpg', html, 'image/jpeg');
    expect(res.statusCode, res.body).toBe(201);
    const [stored] = await storage.find(t.tenantId, [res.json<{ id: string }>().id]);
    expect(stored!.contentType).toBe('application/octet-stream');
  });

  it('refuses a file over the limit (413), an empty file and no file (422), and keeps nothing', async () => {
    const t = await newTenant();
    const big = await upload(t, 'big.jpg', Buffer.concat([jpeg, Buffer.alloc(maxBytes)]));
    expect(big.statusCode).toBe(413);
    expect(big.json().message).toMatch(/ファイルが大きすぎます/);
    const empty = await upload(t, 'empty.jpg', Buffer.alloc(0));
    expect(empty.statusCode).toBe(422);
    expect(empty.json().errors).toEqual([{ field: 'file', message: 'ファイルが空です' }]);
    const { rows } = await sql<{ n: string }>`SELECT count(*) AS n FROM files.stored_files
      WHERE tenant_id = ${t.tenantId}`.execute(db.kysely);
    expect(Number(rows[0]!.n)).toBe(0);
    expect(fs.readdirSync(path.join(dataDir, 'uploads', '.staging'))).toEqual([]);
  });
});

describe('attachments of a communication', () => {
  it('attaches uploaded files on create and update, answers them, and releases the removed ones', async () => {
    const t = await newTenant();
    const a = (await upload(t, 'a.jpg', jpeg)).json<{ id: string }>().id;
    const b = (await upload(t, 'b.pdf', Buffer.from('%PDF-1.4 test'))).json<{ id: string }>().id;
    const url = `/api/medical_institutions/${institution}/communications`;
    const created = await call(t, 'POST', url, { ...visit, attachment_ids: [b, a] });
    expect(created.statusCode, created.body).toBe(201);
    const record = created.json<{ id: string; attachments: { id: string; filename: string; url: string }[] }>();
    expect(record.attachments.map((x) => [x.id, x.filename])).toEqual([
      [b, 'b.pdf'],
      [a, 'a.jpg'],
    ]);
    expect((await storage.find(t.tenantId, [a]))[0]!.owner).toBe(`communication:${record.id}`);

    const updated = await call(t, 'PUT', `/api/communications/${record.id}`, { ...visit, attachment_ids: [a] });
    expect(updated.statusCode, updated.body).toBe(200);
    expect(updated.json().attachments.map((x: { id: string }) => x.id)).toEqual([a]);
    expect(updated.json().vocs).toEqual([]);
    expect((await storage.find(t.tenantId, [b]))[0]!.owner).toBeNull();

    // Another record cannot take a file this one holds.
    const count = await tenantEventCount(db, t.tenantId);
    const other = await call(t, 'POST', url, { ...visit, attachment_ids: [a] });
    expect(other.statusCode).toBe(422);
    expect(other.json().errors).toEqual([
      { field: 'attachment_ids.0', message: 'このファイルは他の活動記録に添付されています' },
    ]);
    expect(await tenantEventCount(db, t.tenantId)).toBe(count);

    await call(t, 'DELETE', `/api/communications/${record.id}`);
    expect((await storage.find(t.tenantId, [a]))[0]!.owner).toBeNull();
  });

  it("refuses another tenant's file as not found and writes nothing", async () => {
    const t = await newTenant();
    const stranger = await newTenant();
    const theirs = (await upload(stranger, 'x.jpg', jpeg)).json<{ id: string }>().id;
    const count = await tenantEventCount(db, t.tenantId);
    const res = await call(t, 'POST', `/api/medical_institutions/${institution}/communications`, {
      ...visit,
      attachment_ids: [theirs],
    });
    expect(res.statusCode).toBe(422);
    expect(res.json().errors).toEqual([{ field: 'attachment_ids.0', message: '添付ファイルが見つかりません' }]);
    expect(await tenantEventCount(db, t.tenantId)).toBe(count);
  });

  it('answers the VOCs that link the record in the update answer', async () => {
    const t = await newTenant();
    const created = await call(t, 'POST', `/api/medical_institutions/${institution}/communications`, visit);
    const id = created.json<{ id: string }>().id;
    const voc = await call(t, 'POST', '/api/vocs', {
      title: '紹介状の書式',
      medical_institution_id: institution,
      reported_date: '2026-04-01',
      communication_ids: [id],
    });
    expect(voc.statusCode, voc.body).toBe(201);
    const updated = await call(t, 'PUT', `/api/communications/${id}`, { ...visit, story: '追記' });
    expect(updated.statusCode, updated.body).toBe(200);
    expect(updated.json().vocs).toEqual([
      { id: voc.json().id, title: '紹介状の書式', status: voc.json().status, priority: voc.json().priority },
    ]);
  });
});
