import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { createTestDatabase, type TestDatabase } from '@renkei/db';
import { createPostgresEventStore, type EventStore } from '@renkei/event-store';
import { generateInstitutionMaster, importInstitutionMaster } from '@renkei/institution-master';
import type { TestAuth } from '@renkei/service-kit/testing';
import { buildTestCommandApp, injectAs, tenantEventCount, type WriteMethod } from '../testing.ts';

let db: TestDatabase;
let store: EventStore;
let app: FastifyInstance;
let testAuth: TestAuth;
let institutions: string[];

beforeAll(async () => {
  db = await createTestDatabase();
  store = await createPostgresEventStore(db);
  ({ app, testAuth } = await buildTestCommandApp(db, store));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'renkei-doctors-'));
  await generateInstitutionMaster(path.join(dir, 'm.csv'), { count: 3, seed: 7 });
  await importInstitutionMaster(db, path.join(dir, 'm.csv'));
  fs.rmSync(dir, { recursive: true });
  const { rows } = await sql<{ id: string }>`SELECT id FROM ref.medical_institutions ORDER BY code`.execute(db.kysely);
  institutions = rows.map((r) => r.id);
});

afterAll(async () => {
  await app?.close();
  await store?.close();
  await db?.close();
});

const newTenant = () => ({ tenantId: randomUUID(), accountId: randomUUID() });
type Caller = ReturnType<typeof newTenant>;
const call = (caller: Caller, method: WriteMethod, url: string, payload?: unknown, headers?: Record<string, string>) =>
  injectAs({ app, testAuth }, caller, method, url, payload, headers);

it('answers concurrent retries with one Idempotency-Key alike, adding one doctor', async () => {
  const t = newTenant();
  const url = `/api/medical_institutions/${institutions[0]}/doctors`;
  const headers = { 'idempotency-key': 'doctor-add-concurrent' };
  const answers = await Promise.all(
    Array.from({ length: 5 }, () => call(t, 'POST', url, { name: '田中 一郎' }, headers)),
  );
  expect(answers.map((r) => r.statusCode)).toEqual([201, 201, 201, 201, 201]);
  for (const r of answers) expect(r.json()).toEqual(answers[0]!.json());
  expect(await tenantEventCount(db, t.tenantId)).toBe(1);
});

it('adds one doctor for three retries with one Idempotency-Key; the key with another body is a 422', async () => {
  const t = newTenant();
  const url = `/api/medical_institutions/${institutions[0]}/doctors`;
  const headers = { 'idempotency-key': 'doctor-add-1' };
  const first = await call(t, 'POST', url, { name: '山田 太郎' }, headers);
  expect(first.statusCode, first.body).toBe(201);
  const count = await tenantEventCount(db, t.tenantId);
  for (let i = 0; i < 2; i++) {
    const retry = await call(t, 'POST', url, { name: '山田 太郎' }, headers);
    expect(retry.statusCode).toBe(201);
    expect(retry.json()).toEqual(first.json());
    expect(retry.headers['x-position']).toBe(first.headers['x-position']);
  }
  expect(await tenantEventCount(db, t.tenantId)).toBe(count);
  const other = await call(t, 'POST', url, { name: '佐藤 花子' }, headers);
  expect(other.statusCode).toBe(422);
  // The same key on another institution is another request.
  const elsewhere = await call(
    t,
    'POST',
    `/api/medical_institutions/${institutions[1]}/doctors`,
    { name: '山田 太郎' },
    headers,
  );
  expect(elsewhere.statusCode).toBe(422);
  expect(await tenantEventCount(db, t.tenantId)).toBe(count);
  // Without a key every request is a new doctor.
  await call(t, 'POST', url, { name: '山田 太郎' });
  expect(await tenantEventCount(db, t.tenantId)).toBe(count + 1);
});
