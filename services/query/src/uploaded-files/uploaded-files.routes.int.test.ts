import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { randomBytes, randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { defaultResources, featureKeys } from '@renkei/contracts';
import { createTestDatabase, type TestDatabase } from '@renkei/db';
import { createPostgresEventStore, newEventMetadata, type EventStore } from '@renkei/event-store';
import { createPostgresFileStorage, signFileUrl, type FileStorage, type StoredFile } from '@renkei/file-storage';
import { generateInstitutionMaster, importInstitutionMaster } from '@renkei/institution-master';
import { catchUpProjections } from '@renkei/projections';
import { createTestAuth, type TestAuth } from '@renkei/service-kit/testing';
import { buildQueryApp, queryProjections } from '../index.ts';
import { blankCommunication } from '@renkei/domain/testing';

let db: TestDatabase;
let store: EventStore;
let storage: FileStorage;
let app: FastifyInstance;
let testAuth: TestAuth;
let institution: string;
const key = randomBytes(32);

beforeAll(async () => {
  db = await createTestDatabase();
  store = await createPostgresEventStore(db);
  storage = createPostgresFileStorage(db);
  testAuth = await createTestAuth({ audience: defaultResources.query });
  app = await buildQueryApp({
    db,
    store,
    auth: testAuth.auth,
    logger: false,
    rateLimit: false,
    underPressure: false,
    fileStorage: storage,
    fileUrlKey: key,
  });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'renkei-qf-'));
  await generateInstitutionMaster(path.join(dir, 'm.csv'), { count: 1, seed: 5 });
  await importInstitutionMaster(db, path.join(dir, 'm.csv'));
  fs.rmSync(dir, { recursive: true });
  const { rows } = await sql<{ id: string }>`SELECT id FROM ref.medical_institutions`.execute(db.kysely);
  institution = rows[0]!.id;
});

afterAll(async () => {
  await app?.close();
  await store?.close();
  await db?.close();
});

const put = (tenantId: string, filename: string, contentType: string, content: Buffer): Promise<StoredFile> =>
  storage.put(
    { id: randomUUID(), tenantId, filename, contentType, createdBy: randomUUID() },
    Readable.from([content.subarray(0, 3), content.subarray(3)]),
  );

async function get(url: string, tenantId?: string) {
  const headers: Record<string, string> = {};
  if (tenantId) headers.authorization = `Bearer ${await testAuth.token({ tenantId, features: [...featureKeys] })}`;
  return app.inject({ method: 'GET', url, headers });
}

const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), randomBytes(300_000)]);

describe('file content', () => {
  it('opens an image inline through its signed link, whole, with nosniff and no sign-in', async () => {
    const tenantId = randomUUID();
    const file = await put(tenantId, '写真.png', 'image/png', png);
    const res = await get(signFileUrl(key, file));
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('image/png');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['content-disposition']).toBe(
      `inline; filename="__.png"; filename*=UTF-8''${encodeURIComponent('写真.png')}`,
    );
    expect(res.rawPayload.equals(png)).toBe(true);
    // A campaign mail's image is loaded from the mail client's origin.
    expect(res.headers['cross-origin-resource-policy']).toBe('cross-origin');
  });

  it('sends anything not known safe as a download', async () => {
    const tenantId = randomUUID();
    const file = await put(tenantId, 'page.html', 'application/octet-stream', Buffer.from('<script>x</script>'));
    const res = await get(signFileUrl(key, file));
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/octet-stream');
    expect(res.headers['content-disposition']).toMatch(/^attachment; filename="page.html"/);
    expect(res.headers['content-security-policy']).toContain('sandbox');
    expect(res.headers['cross-origin-resource-policy']).toBe('same-origin');
  });

  it('refuses an expired, altered or forged link, and a link of another file, as not found', async () => {
    const tenantId = randomUUID();
    const file = await put(tenantId, 'a.png', 'image/png', png);
    const other = await put(tenantId, 'b.png', 'image/png', png);
    const expired = signFileUrl(key, file, new Date(Date.now() - 31 * 60 * 1000));
    expect((await get(expired)).statusCode).toBe(404);
    const good = new URL(signFileUrl(key, file), 'http://x');
    const signature = good.searchParams.get('signature')!;
    const expires = Number(good.searchParams.get('expires'));
    expect((await get(`/files/${file.id}?expires=${expires + 60}&signature=${signature}`)).statusCode).toBe(404);
    expect((await get(`/files/${other.id}?expires=${expires}&signature=${signature}`)).statusCode).toBe(404);
    expect((await get(signFileUrl(randomBytes(32), file))).statusCode).toBe(404);
    expect((await get(`/files/${file.id}`)).statusCode).toBe(404);
    expect((await get(`/files/not-a-uuid?expires=${expires}&signature=${signature}`)).statusCode).toBe(404);
    expect((await get(`${good.pathname}${good.search}`)).statusCode).toBe(200);
  });

  it('answers a signed-in caller of the tenant, and another tenant 404', async () => {
    const tenantId = randomUUID();
    const file = await put(tenantId, 'a.png', 'image/png', png);
    expect((await get(`/api/uploaded_files/${file.id}`)).statusCode).toBe(401);
    const own = await get(`/api/uploaded_files/${file.id}`, tenantId);
    expect(own.statusCode).toBe(200);
    expect(own.rawPayload.equals(png)).toBe(true);
    expect((await get(`/api/uploaded_files/${file.id}`, randomUUID())).statusCode).toBe(404);
    expect((await get(`/api/uploaded_files/${randomUUID()}`, tenantId)).statusCode).toBe(404);
  });
});

it("answers a communication's attachments in order on GET and in the search", async () => {
  const tenantId = randomUUID();
  const user = randomUUID();
  const communicationId = randomUUID();
  const [a, b] = [await put(tenantId, 'a.png', 'image/png', png), await put(tenantId, 'b.pdf', 'application/pdf', png)];
  const result = await store.append(
    `communication-${communicationId}`,
    [
      {
        type: 'CommunicationCreated',
        data: blankCommunication(
          {
            communication_id: communicationId,
            medical_institution_id: institution,
            user_id: user,
            acted_date: '2026-03-01',
          },
          { attachment_ids: [b.id, a.id], tasks: [] },
        ),
        metadata: newEventMetadata(tenantId),
      },
    ],
    { expectedRevision: 'no_stream' },
  );
  await storage.setOwnerFiles(tenantId, `communication:${communicationId}`, [b.id, a.id], 0);
  await catchUpProjections({ db, store, projections: queryProjections, until: result.position });
  const one = await get(`/api/communications/${communicationId}`, tenantId);
  expect(one.statusCode, one.body).toBe(200);
  const attachments = one.json().attachments as { id: string; filename: string; url: string }[];
  expect(attachments.map((x) => [x.id, x.filename])).toEqual([
    [b.id, 'b.pdf'],
    [a.id, 'a.png'],
  ]);
  expect((await get(attachments[1]!.url)).rawPayload.equals(png)).toBe(true);
  const token = await testAuth.token({ tenantId, features: [...featureKeys] });
  const search = await app.inject({
    method: 'POST',
    url: '/api/communications/search_results',
    headers: { authorization: `Bearer ${token}` },
    payload: {},
  });
  expect(search.json().data[0].attachments.map((x: { id: string }) => x.id)).toEqual([b.id, a.id]);
});
