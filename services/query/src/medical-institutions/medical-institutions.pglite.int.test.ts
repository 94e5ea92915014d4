import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { defaultResources, featureKeys } from '@renkei/contracts';
import { openDatabase, type Database } from '@renkei/db';
import { createPostgresEventStore, type EventStore } from '@renkei/event-store';
import { buildInstitutionCode, importInstitutionMaster } from '@renkei/institution-master';
import { catchUpProjections } from '@renkei/projections';
import { createTestAuth, type TestAuth } from '@renkei/service-kit/testing';
import { buildQueryApp, queryProjections } from '../index.ts';

// The embedded default (PGlite) has no pg_trgm and one connection: the master's migrations (the 2-gram
// index among them) must run there, and searches, each two short transactions, must not wait on
// themselves when several arrive at once.
let dataDir: string;
let db: Database;
let store: EventStore;
let app: FastifyInstance;
let testAuth: TestAuth;

const code = (n: number) =>
  buildInstitutionCode({ prefectureCode: 22, scoreTable: 1, districtNumber: 1, institutionNumber: 2000 + n });
const row = (n: number, name: string, kana: string, type: string, status: string) =>
  [code(n), name, kana, '420-0001', `静岡県静岡市葵区追手町${n}-1`, '', '', '', type, '', '内科', '', '', status].join(
    ',',
  );

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'renkei-mi-pglite-'));
  db = await openDatabase({ dataDir });
  store = await createPostgresEventStore(db);
  // Creates the read models' tables, as the worker does on start.
  await catchUpProjections({ db, store, projections: queryProjections, until: await store.headPosition() });
  testAuth = await createTestAuth({ audience: defaultResources.query });
  app = await buildQueryApp({ db, auth: testAuth.auth, logger: false, rateLimit: false, underPressure: false });
  const file = path.join(dataDir, 'master.csv');
  fs.writeFileSync(
    file,
    [
      row(1, 'サクラ総合病院', 'サクラソウゴウビョウイン', '一般病院', '開設'),
      row(2, 'あおば内科クリニック', 'アオバナイカクリニック', '無床診療所', '開設'),
      row(3, '富士見病院', 'フジミビョウイン', '一般病院', '廃止'),
    ].join('\r\n'),
  );
  expect((await importInstitutionMaster(db, file)).insertedCount).toBe(3);
});

afterAll(async () => {
  await app?.close();
  await store?.close();
  await db?.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

it('searches 1-, 2- and 3+-character keywords on the embedded database, several at once', async () => {
  const tenantId = randomUUID();
  const headers = { authorization: `Bearer ${await testAuth.token({ tenantId, features: [...featureKeys] })}` };
  const bodies = [
    { keyword: '病院' },
    { keyword: 'びょういん' },
    { keyword: '院' },
    { keyword: 'ｸﾘ' },
    { keyword: '病院', running_statuses: ['open'] },
    { keyword: '病院', tag_filter_groups: [{ logic: 'and', search_condition: 'exclude', tag_ids: [randomUUID()] }] },
  ];
  const results = await Promise.all(
    bodies.map((payload) =>
      app.inject({ method: 'POST', url: '/api/medical_institutions/search_results', headers, payload }),
    ),
  );
  const found = results.map((res) => {
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json() as { data: { name: string }[]; meta: { total_count: number } };
    expect(body.meta.total_count).toBe(body.data.length);
    return body.data.map((d) => d.name).sort();
  });
  expect(found).toEqual([
    ['サクラ総合病院', '富士見病院'],
    ['サクラ総合病院', '富士見病院'],
    ['サクラ総合病院', '富士見病院'],
    ['あおば内科クリニック'],
    ['サクラ総合病院'],
    ['サクラ総合病院', '富士見病院'],
  ]);
  const { rows } = await db.pool.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM pg_indexes WHERE indexname = 'medical_institutions_search_bigrams'`,
  );
  expect(rows[0]!.n).toBe(1);
});

it('counts a communication keyword search over a period on the embedded database (its covering index)', async () => {
  const tenantId = randomUUID();
  const headers = { authorization: `Bearer ${await testAuth.token({ tenantId, features: [...featureKeys] })}` };
  const res = await app.inject({
    method: 'POST',
    url: '/api/communications/search_results',
    headers,
    payload: { keyword: '面談', period: { from: '2026-01-01', to: '2026-03-31' } },
  });
  expect(res.statusCode, res.body).toBe(200);
  expect(res.json().meta.total_count).toBe(0);
});
