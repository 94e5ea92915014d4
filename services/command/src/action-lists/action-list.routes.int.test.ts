import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { createTestDatabase, type TestDatabase } from '@renkei/db';
import { createPostgresEventStore, newEventMetadata, streamId, type EventStore } from '@renkei/event-store';
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
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'renkei-action-lists-'));
  await generateInstitutionMaster(path.join(dir, 'm.csv'), { count: 4, seed: 21 });
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

interface Caller {
  tenantId: string;
  accountId: string;
  role: 'owner' | 'member';
}

async function account(tenantId: string, username: string, role: 'owner' | 'member'): Promise<Caller> {
  const accountId = randomUUID();
  await store.append(
    streamId('account', accountId),
    [
      {
        type: 'AccountRegistered',
        data: {
          account_id: accountId,
          tenant_id: tenantId,
          username,
          email: null,
          login_name: null,
          role,
          cs_account: false,
        },
        metadata: newEventMetadata(tenantId),
      },
    ],
    { expectedRevision: 'no_stream' },
  );
  return { tenantId, accountId, role };
}

// Every account may use action lists: the tests act as members.
const newTenant = () => account(randomUUID(), '連携 花子', 'member');
const call = (caller: Caller, method: WriteMethod, url: string, payload?: unknown, headers?: Record<string, string>) =>
  injectAs({ app, testAuth }, caller, method, url, payload, headers);
const events = (t: Caller) => tenantEventCount(db, t.tenantId);

async function createList(t: Caller, body: object = { name: '挨拶回り' }): Promise<string> {
  const res = await call(t, 'POST', '/api/action_lists', body);
  expect(res.statusCode, res.body).toBe(201);
  return res.json().id as string;
}

it('creates a list with a trimmed name and its first institutions, as the caller', async () => {
  const t = await newTenant();
  const res = await call(t, 'POST', '/api/action_lists', {
    name: '  新規開業クリニック挨拶回り  ',
    medical_institution_ids: [institutions[0], institutions[1], institutions[0]],
  });
  expect(res.statusCode, res.body).toBe(201);
  expect(res.headers.etag).toBe('"1"');
  expect(res.headers['x-position']).toBeTruthy();
  expect(res.json()).toMatchObject({
    name: '新規開業クリニック挨拶回り',
    status: 'in_progress',
    medical_institution_count: 2,
    actioned_count: 0,
    created_by: { id: t.accountId, name: '連携 花子' },
    version: 1,
  });
});

it('answers a retry under one Idempotency-Key as the first request, creating one list', async () => {
  const t = await newTenant();
  const headers = { 'idempotency-key': 'al-1' };
  const first = await call(t, 'POST', '/api/action_lists', { name: '年末挨拶状' }, headers);
  const before = await events(t);
  const retry = await call(t, 'POST', '/api/action_lists', { name: '年末挨拶状' }, headers);
  expect(retry.json()).toEqual(first.json());
  expect(await events(t)).toBe(before);
  const other = await call(t, 'POST', '/api/action_lists', { name: '別のリスト' }, headers);
  expect(other.statusCode).toBe(422);
});

it('refuses bad input with 422 naming the fields, writing nothing', async () => {
  const t = await newTenant();
  const before = await events(t);
  const blank = await call(t, 'POST', '/api/action_lists', { name: '   ', medical_institution_ids: ['x'] });
  expect(blank.statusCode).toBe(422);
  const fields = (blank.json().errors as { field: string }[]).map((e) => e.field);
  expect(fields).toEqual(expect.arrayContaining(['name', 'medical_institution_ids.0']));
  const unknown = await call(t, 'POST', '/api/action_lists', {
    name: 'リスト',
    medical_institution_ids: [institutions[0], randomUUID()],
  });
  expect(unknown.statusCode).toBe(422);
  expect(unknown.json().errors).toEqual([{ field: 'medical_institution_ids.1', message: '医療機関が見つかりません' }]);
  const tooMany = await call(t, 'POST', '/api/action_lists', {
    name: 'リスト',
    medical_institution_ids: Array.from({ length: 10_001 }, () => institutions[0]),
  });
  expect(tooMany.statusCode).toBe(422);
  expect(tooMany.json().errors[0]).toMatchObject({
    field: 'medical_institution_ids',
    message: '医療機関は一度に10000件まで指定できます',
  });
  expect(await events(t)).toBe(before);
});

it('renames and changes status with If-Match; a stale version is 409 and writes nothing', async () => {
  const t = await newTenant();
  const id = await createList(t);
  const renamed = await call(
    t,
    'PUT',
    `/api/action_lists/${id}`,
    { name: ' 紹介減少先フォロー ' },
    { 'if-match': '"0"' },
  );
  expect(renamed.statusCode, renamed.body).toBe(200);
  expect(renamed.headers.etag).toBe('"1"');
  expect(renamed.json()).toMatchObject({ name: '紹介減少先フォロー', version: 1, created_by: { id: t.accountId } });
  const before = await events(t);
  const stale = await call(t, 'PUT', `/api/action_lists/${id}/status`, { status: 'completed' }, { 'if-match': '"0"' });
  expect(stale.statusCode).toBe(409);
  expect(await events(t)).toBe(before);
  const done = await call(t, 'PUT', `/api/action_lists/${id}/status`, { status: 'completed' }, { 'if-match': '"1"' });
  expect(done.statusCode).toBe(200);
  expect(done.json()).toMatchObject({ status: 'completed', version: 2 });
  const bad = await call(t, 'PUT', `/api/action_lists/${id}/status`, { status: 'done' });
  expect(bad.statusCode).toBe(422);
  expect(bad.json().errors[0].field).toBe('status');
  const staleDelete = await call(t, 'DELETE', `/api/action_lists/${id}`, undefined, { 'if-match': '"1"' });
  expect(staleDelete.statusCode).toBe(409);
});

it('counts only the institutions a bulk call changes', async () => {
  const t = await newTenant();
  const id = await createList(t, { name: 'リスト', medical_institution_ids: [institutions[0]] });
  const insert = await call(t, 'POST', `/api/action_lists/${id}/medical_institutions/bulk_insert`, {
    medical_institution_ids: [institutions[0], institutions[1], institutions[2], institutions[1]],
  });
  expect(insert.statusCode, insert.body).toBe(200);
  expect(insert.json()).toEqual({ count: 2 });
  const again = await call(t, 'POST', `/api/action_lists/${id}/medical_institutions/bulk_insert`, {
    medical_institution_ids: [institutions[1]],
  });
  expect(again.json()).toEqual({ count: 0 });
  const marked = await call(t, 'PUT', `/api/action_lists/${id}/medical_institutions/status`, {
    medical_institution_ids: [institutions[0], institutions[1], institutions[3]],
    status: 'actioned',
  });
  expect(marked.json()).toEqual({ count: 2 });
  const markedAgain = await call(t, 'PUT', `/api/action_lists/${id}/medical_institutions/status`, {
    medical_institution_ids: [institutions[0]],
    status: 'actioned',
  });
  expect(markedAgain.json()).toEqual({ count: 0 });
  const removed = await call(t, 'POST', `/api/action_lists/${id}/medical_institutions/bulk_delete`, {
    medical_institution_ids: [institutions[2], institutions[3]],
  });
  expect(removed.json()).toEqual({ count: 1 });
  const status = await call(t, 'PUT', `/api/action_lists/${id}/status`, { status: 'completed' });
  expect(status.json()).toMatchObject({ medical_institution_count: 2, actioned_count: 2 });
});

it('refuses unknown institutions in a bulk insert by position, writing nothing', async () => {
  const t = await newTenant();
  const id = await createList(t);
  const before = await events(t);
  const res = await call(t, 'POST', `/api/action_lists/${id}/medical_institutions/bulk_insert`, {
    medical_institution_ids: [institutions[0], randomUUID()],
  });
  expect(res.statusCode).toBe(422);
  expect(res.json().errors).toEqual([{ field: 'medical_institution_ids.1', message: '医療機関が見つかりません' }]);
  const empty = await call(t, 'POST', `/api/action_lists/${id}/medical_institutions/bulk_insert`, {
    medical_institution_ids: [],
  });
  expect(empty.statusCode).toBe(422);
  expect(empty.json().errors[0]).toMatchObject({
    field: 'medical_institution_ids',
    message: '医療機関を1件以上選択してください',
  });
  expect(await events(t)).toBe(before);
});

it('adds one institution with its master data; the same one again is a 422', async () => {
  const t = await newTenant();
  const id = await createList(t);
  const res = await call(t, 'POST', `/api/action_lists/${id}/medical_institutions`, {
    medical_institution_id: institutions[0],
  });
  expect(res.statusCode, res.body).toBe(201);
  expect(res.json()).toMatchObject({
    medical_institution: { id: institutions[0] },
    status: 'not_actioned',
    updated_by: { id: t.accountId, name: '連携 花子' },
  });
  expect(typeof res.json().medical_institution.name).toBe('string');
  const before = await events(t);
  const again = await call(t, 'POST', `/api/action_lists/${id}/medical_institutions`, {
    medical_institution_id: institutions[0],
  });
  expect(again.statusCode).toBe(422);
  expect(again.json().errors).toEqual([
    { field: 'medical_institution_id', message: 'この医療機関は既にアクションリストに含まれています' },
  ]);
  expect(await events(t)).toBe(before);
});

it("answers 404 for another tenant's list, a deleted list and an unknown id, writing nothing", async () => {
  const owner = await newTenant();
  const intruder = await newTenant();
  const id = await createList(owner);
  const before = await events(owner);
  const intruderBefore = await events(intruder);
  const attempts: [WriteMethod, string, unknown][] = [
    ['PUT', `/api/action_lists/${id}`, { name: '乗っ取り' }],
    ['PUT', `/api/action_lists/${id}/status`, { status: 'completed' }],
    ['DELETE', `/api/action_lists/${id}`, undefined],
    ['POST', `/api/action_lists/${id}/medical_institutions`, { medical_institution_id: institutions[0] }],
    [
      'POST',
      `/api/action_lists/${id}/medical_institutions/bulk_insert`,
      { medical_institution_ids: [institutions[0]] },
    ],
    [
      'POST',
      `/api/action_lists/${id}/medical_institutions/bulk_delete`,
      { medical_institution_ids: [institutions[0]] },
    ],
    [
      'PUT',
      `/api/action_lists/${id}/medical_institutions/status`,
      { medical_institution_ids: [institutions[0]], status: 'actioned' },
    ],
  ];
  for (const [method, url, body] of attempts) {
    const res = await call(intruder, method, url, body);
    expect(res.statusCode, `${method} ${url}`).toBe(404);
  }
  expect(await events(owner)).toBe(before);
  expect(await events(intruder)).toBe(intruderBefore);

  const deleted = await call(owner, 'DELETE', `/api/action_lists/${id}`, undefined, { 'if-match': '0' });
  expect(deleted.statusCode).toBe(204);
  for (const [method, url, body] of attempts) {
    const res = await call(owner, method, url, body);
    expect(res.statusCode, `${method} ${url} after delete`).toBe(404);
  }
  const made = await call(owner, 'PUT', `/api/action_lists/${randomUUID()}`, { name: 'x' });
  expect(made.statusCode).toBe(404);
});
