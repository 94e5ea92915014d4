import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { featureKeys } from '@renkei/contracts';
import { createTestDatabase, type TestDatabase } from '@renkei/db';
import { createPostgresEventStore, type EventStore } from '@renkei/event-store';
import type { TestAuth } from '@renkei/service-kit/testing';
import { buildTestCommandApp, tenantEventCount } from '../testing.ts';

let db: TestDatabase;
let store: EventStore;
let app: FastifyInstance;
let testAuth: TestAuth;
let dataDir: string;
const url = '/api/imports/medical_institution_label_values';
const limit = 64 * 1024;

beforeAll(async () => {
  db = await createTestDatabase();
  store = await createPostgresEventStore(db);
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'renkei-upload-'));
  process.env.RENKEI_DATA_DIR = dataDir;
  process.env.RENKEI_LABEL_VALUE_IMPORT_MAX_BYTES = String(limit);
  ({ app, testAuth } = await buildTestCommandApp(db, store));
});

afterAll(async () => {
  delete process.env.RENKEI_LABEL_VALUE_IMPORT_MAX_BYTES;
  await app?.close();
  await store?.close();
  await db?.close();
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
});

function multipart(filename: string, content: Buffer, boundary = '----renkei' + randomUUID()) {
  return {
    boundary,
    payload: Buffer.concat([
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: text/csv\r\n\r\n`,
      ),
      content,
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]),
  };
}

async function post(payload: Buffer | string, contentType: string) {
  const tenantId = randomUUID();
  const token = await testAuth.token({ tenantId, accountId: randomUUID(), features: [...featureKeys] });
  const res = await app.inject({
    method: 'POST',
    url,
    payload,
    headers: { 'content-type': contentType, authorization: `Bearer ${token}` },
  });
  return { res, tenantId };
}

/**
 * The staging files left once the requests' clean-up has run: it runs after the answer is sent, so
 * this waits (up to 5 s) for the folder to empty; a file left behind for good still fails the test.
 */
async function staged(): Promise<string[]> {
  const read = () => fs.readdirSync(path.join(dataDir, 'imports', '.staging'));
  const until = Date.now() + 5_000;
  while (read().length > 0 && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 20));
  return read();
}

describe('label value upload limits', () => {
  it('answers 413 with the error body for a file over the limit, while streaming, and keeps nothing', async () => {
    const body = multipart('big.csv', Buffer.alloc(limit * 4, 'a'));
    const { res, tenantId } = await post(body.payload, `multipart/form-data; boundary=${body.boundary}`);
    expect(res.statusCode).toBe(413);
    expect(res.json()).toMatchObject({
      status: 413,
      message: expect.stringContaining('大きすぎます'),
      request_id: expect.any(String),
    });
    expect(await tenantEventCount(db, tenantId)).toBe(0);
    expect(await staged()).toEqual([]);
    expect(fs.existsSync(path.join(dataDir, 'imports', tenantId))).toBe(false);
  });

  it('answers 400 for a body cut off inside the file, and keeps nothing', async () => {
    const body = multipart('cut.csv', Buffer.from('医療機関コード,重点度\r\n'.repeat(100)));
    const cut = body.payload.subarray(0, body.payload.length - 200);
    const { res, tenantId } = await post(cut, `multipart/form-data; boundary=${body.boundary}`);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ status: 400, message: expect.any(String) });
    expect(await tenantEventCount(db, tenantId)).toBe(0);
    expect(await staged()).toEqual([]);
  });

  it('answers 400 for a multipart body without a boundary', async () => {
    const body = multipart('x.csv', Buffer.from('医療機関コード\r\n'));
    const { res } = await post(body.payload, 'multipart/form-data');
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ status: 400, message: expect.any(String) });
  });

  it('answers 422 for a file name of 5,000 characters', async () => {
    const body = multipart(`${'あ'.repeat(5000)}.csv`, Buffer.from('医療機関コード\r\n'));
    const { res, tenantId } = await post(body.payload, `multipart/form-data; boundary=${body.boundary}`);
    expect(res.statusCode).toBe(422);
    expect(res.json().errors).toEqual([{ field: 'file', message: expect.stringContaining('ファイル名') }]);
    expect(await tenantEventCount(db, tenantId)).toBe(0);
    expect(await staged()).toEqual([]);
  });

  it('keeps a file name with control characters without them', async () => {
    const body = multipart('ラベル\u0007値.csv', Buffer.from('医療機関コード\r\n'));
    const { res } = await post(body.payload, `multipart/form-data; boundary=${body.boundary}`);
    expect(res.statusCode, res.body).toBe(202);
    expect(res.json().filename).toBe('ラベル値.csv');
  });
});

describe('label value import retries', () => {
  it('opens one import for retries with one Idempotency-Key, sequential or concurrent; another file is a 422', async () => {
    const tenantId = randomUUID();
    const token = await testAuth.token({ tenantId, accountId: randomUUID(), features: [...featureKeys] });
    const send = (content: string) => {
      const body = multipart('values.csv', Buffer.from(content));
      return app.inject({
        method: 'POST',
        url,
        payload: body.payload,
        headers: {
          'content-type': `multipart/form-data; boundary=${body.boundary}`,
          authorization: `Bearer ${token}`,
          'idempotency-key': 'import-1',
        },
      });
    };
    const csv = '医療機関コード,紹介元\r\n2210110017,あり\r\n';
    const first = await send(csv);
    expect(first.statusCode, first.body).toBeLessThan(300);
    const events = await tenantEventCount(db, tenantId);
    const retries = await Promise.all([send(csv), send(csv), send(csv)]);
    for (const r of retries)
      expect({ status: r.statusCode, body: r.json() }).toEqual({ status: first.statusCode, body: first.json() });
    expect(await tenantEventCount(db, tenantId)).toBe(events);
    expect(fs.readdirSync(path.join(dataDir, 'imports', tenantId))).toEqual([first.json().id]);
    expect(await staged()).toEqual([]);
    expect((await send('医療機関コード,紹介元\r\n2210110017,なし\r\n')).statusCode).toBe(422);
  });
});
