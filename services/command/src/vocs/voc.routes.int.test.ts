import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { listVersion } from '@renkei/contracts';
import { createTestDatabase, type TestDatabase } from '@renkei/db';
import { createPostgresEventStore, newEventMetadata, streamId, type EventStore } from '@renkei/event-store';
import { generateInstitutionMaster, importInstitutionMaster } from '@renkei/institution-master';
import type { TestAuth } from '@renkei/service-kit/testing';
import { buildTestCommandApp, injectAs, tenantEventCount, type WriteMethod } from '../testing.ts';

let db: TestDatabase;
let store: EventStore;
let app: FastifyInstance;
let testAuth: TestAuth;
let institution: string;
let otherInstitution: string;

beforeAll(async () => {
  db = await createTestDatabase();
  store = await createPostgresEventStore(db);
  ({ app, testAuth } = await buildTestCommandApp(db, store));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'renkei-vocs-'));
  await generateInstitutionMaster(path.join(dir, 'm.csv'), { count: 2, seed: 12 });
  await importInstitutionMaster(db, path.join(dir, 'm.csv'));
  fs.rmSync(dir, { recursive: true });
  const { rows } = await sql<{ id: string }>`SELECT id FROM ref.medical_institutions ORDER BY code`.execute(db.kysely);
  [institution, otherInstitution] = [rows[0]!.id, rows[1]!.id];
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

async function account(tenantId: string, username: string, role: 'owner' | 'member' = 'owner'): Promise<Caller> {
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

const newTenant = () => account(randomUUID(), '連携 花子');
const call = (caller: Caller, method: WriteMethod, url: string, payload?: unknown, headers?: Record<string, string>) =>
  injectAs({ app, testAuth }, caller, method, url, payload, headers);
const voc = () => ({ medical_institution_id: institution, title: '返書が遅い', reported_date: '2026-04-01' });
const visitOf = async (t: Caller, at = institution) => {
  const res = await call(t, 'POST', `/api/medical_institutions/${at}/communications`, {
    communication_type: 'visit',
    acted_date: '2026-03-31',
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().id as string;
};

it('creates a VOC heard by the caller, once for retries under one Idempotency-Key', async () => {
  const t = await newTenant();
  const visit = await visitOf(t);
  const body = { ...voc(), priority: 'HIGH', communication_ids: [visit] };
  const headers = { 'idempotency-key': 'voc-1' };
  const first = await call(t, 'POST', '/api/vocs', body, headers);
  expect(first.statusCode, first.body).toBe(201);
  expect(first.headers.etag).toBe('"0"');
  expect(first.headers['x-position']).toBeTruthy();
  expect(first.json()).toMatchObject({
    title: '返書が遅い',
    reported_date: '2026-04-01',
    status: 'NOT_STARTED',
    priority: 'HIGH',
    user: { id: t.accountId, name: '連携 花子' },
    voc_group_id: null,
    communication_ids: [visit],
    version: 0,
  });
  const count = await tenantEventCount(db, t.tenantId);
  const retry = await call(t, 'POST', '/api/vocs', body, headers);
  expect(retry.statusCode).toBe(201);
  expect(retry.json()).toEqual(first.json());
  expect(await tenantEventCount(db, t.tenantId)).toBe(count);
});

it('refuses bad input with the fields named and writes nothing', async () => {
  const t = await newTenant();
  const stranger = await newTenant();
  const foreignVisit = await visitOf(stranger);
  const otherVisit = await visitOf(t, otherInstitution);
  const count = await tenantEventCount(db, t.tenantId);
  const shape = await call(t, 'POST', '/api/vocs', {
    ...voc(),
    title: '',
    reported_date: '2026-04-01T10:00:00Z',
    status: 'DONE',
  });
  expect(shape.statusCode).toBe(422);
  expect(
    shape
      .json()
      .errors.map((e: { field: string }) => e.field)
      .sort(),
  ).toEqual(['reported_date', 'status', 'title']);
  const facts = await call(t, 'POST', '/api/vocs', {
    ...voc(),
    user_id: randomUUID(),
    voc_group_id: randomUUID(),
    communication_ids: [foreignVisit, otherVisit],
  });
  expect(facts.statusCode).toBe(422);
  expect(facts.json().errors).toEqual([
    { field: 'user_id', message: '担当者が見つかりません' },
    { field: 'voc_group_id', message: 'VOCグループが見つかりません' },
    { field: 'communication_ids.0', message: '活動記録が見つかりません' },
    { field: 'communication_ids.1', message: '別の医療機関の活動記録は紐づけられません' },
  ]);
  const nowhere = await call(t, 'POST', '/api/vocs', { ...voc(), medical_institution_id: randomUUID() });
  expect(nowhere.statusCode).toBe(422);
  expect(nowhere.json().errors).toEqual([{ field: 'medical_institution_id', message: '医療機関が見つかりません' }]);
  expect(await tenantEventCount(db, t.tenantId)).toBe(count);
});

it('updates with If-Match: a stale version is a 409; another tenant gets 404', async () => {
  const t = await newTenant();
  const id = (await call(t, 'POST', '/api/vocs', voc())).json().id;
  const done = await call(
    t,
    'PUT',
    `/api/vocs/${id}`,
    { ...voc(), status: 'COMPLETED', action_text: '返書を週内に' },
    { 'if-match': '0' },
  );
  expect(done.statusCode, done.body).toBe(200);
  expect(done.json()).toMatchObject({ status: 'COMPLETED', action_text: '返書を週内に', version: 1 });
  expect(done.headers.etag).toBe('"1"');
  const stale = await call(t, 'PUT', `/api/vocs/${id}`, { ...voc(), title: '古い' }, { 'if-match': '0' });
  expect(stale.statusCode).toBe(409);
  const stranger = await newTenant();
  const count = await tenantEventCount(db, t.tenantId);
  expect((await call(stranger, 'PUT', `/api/vocs/${id}`, voc())).statusCode).toBe(404);
  expect((await call(stranger, 'DELETE', `/api/vocs/${id}`)).statusCode).toBe(404);
  expect(await tenantEventCount(db, t.tenantId)).toBe(count);
  expect((await call(t, 'DELETE', `/api/vocs/${id}`, undefined, { 'if-match': '0' })).statusCode).toBe(409);
  expect((await call(t, 'DELETE', `/api/vocs/${id}`, undefined, { 'if-match': '1' })).statusCode).toBe(204);
  expect((await call(t, 'PUT', `/api/vocs/${id}`, voc())).statusCode).toBe(404);
});

it('replaces the groups; a group in use cannot be dropped until its VOCs move', async () => {
  const t = await newTenant();
  const member = await account(t.tenantId, '地域 太郎', 'member');
  expect((await call(member, 'PUT', '/api/voc_groups', { voc_groups: [{ name: '接遇' }] })).statusCode).toBe(403);
  const saved = await call(t, 'PUT', '/api/voc_groups', { voc_groups: [{ name: '紹介・返書' }, { name: '接遇' }] });
  expect(saved.statusCode, saved.body).toBe(200);
  expect(saved.headers.etag).toBe(`"${listVersion(saved.json())}"`);
  const stale = await call(t, 'PUT', '/api/voc_groups', { voc_groups: [] }, { 'if-match': `"${listVersion([])}"` });
  expect(stale.statusCode).toBe(409);
  const [referral, manners] = saved.json() as { id: string; name: string }[];
  expect(saved.json()).toMatchObject([{ name: '紹介・返書' }, { name: '接遇' }]);
  const id = (await call(t, 'POST', '/api/vocs', { ...voc(), voc_group_id: referral!.id })).json().id;
  const count = await tenantEventCount(db, t.tenantId);
  const refused = await call(t, 'PUT', '/api/voc_groups', { voc_groups: [manners] });
  expect(refused.statusCode).toBe(422);
  expect(refused.json().errors).toEqual([
    {
      field: 'voc_groups',
      message: '「紹介・返書」は1件のVOCで使われているため削除できません。先にVOCのグループを変更してください',
    },
  ]);
  expect(await tenantEventCount(db, t.tenantId)).toBe(count);
  const moved = await call(t, 'PUT', `/api/vocs/${id}`, { ...voc(), voc_group_id: manners!.id });
  expect(moved.statusCode).toBe(200);
  const renamed = await call(t, 'PUT', '/api/voc_groups', { voc_groups: [{ ...manners, name: '接遇・窓口' }] });
  expect(renamed.statusCode, renamed.body).toBe(200);
  expect(renamed.json()).toEqual([{ id: manners!.id, name: '接遇・窓口' }]);
  expect((await call(t, 'PUT', '/api/voc_groups', { voc_groups: [{ name: 'x' }, { name: 'ｘ' }] })).statusCode).toBe(
    422,
  );
});

it('sets the VOCs of a communication from its side, unlinking the others', async () => {
  const t = await newTenant();
  const visit = await visitOf(t);
  const a = (await call(t, 'POST', '/api/vocs', { ...voc(), title: 'A', communication_ids: [visit] })).json();
  const b = (await call(t, 'POST', '/api/vocs', { ...voc(), title: 'B' })).json();
  const elsewhere = (await call(t, 'POST', '/api/vocs', { ...voc(), medical_institution_id: otherInstitution })).json();
  const url = `/api/communications/${visit}/vocs`;
  const count = await tenantEventCount(db, t.tenantId);
  const wrong = await call(t, 'PUT', url, { voc_ids: [b.id, elsewhere.id, randomUUID()] });
  expect(wrong.statusCode).toBe(422);
  expect(wrong.json().errors).toEqual([
    { field: 'voc_ids.1', message: '別の医療機関のVOCは紐づけられません' },
    { field: 'voc_ids.2', message: 'VOCが見つかりません' },
  ]);
  expect(await tenantEventCount(db, t.tenantId)).toBe(count);
  const set = await call(t, 'PUT', url, { voc_ids: [b.id] });
  expect(set.statusCode, set.body).toBe(200);
  expect(set.headers['x-position']).toBeTruthy();
  expect(set.json()).toEqual([{ id: b.id, title: 'B', status: 'NOT_STARTED', priority: 'MIDDLE' }]);
  // A lost its link (a save of it: its version moved), B gained one.
  const staleA = await call(t, 'PUT', `/api/vocs/${a.id}`, { ...voc(), title: 'A' }, { 'if-match': '0' });
  expect(staleA.statusCode).toBe(409);
  const again = await call(t, 'PUT', `/api/vocs/${a.id}`, { ...voc(), title: 'A' }, { 'if-match': '1' });
  expect(again.json().communication_ids).toEqual([]);
  const countAfter = await tenantEventCount(db, t.tenantId);
  expect((await call(t, 'PUT', url, { voc_ids: [b.id] })).statusCode).toBe(200);
  expect(await tenantEventCount(db, t.tenantId)).toBe(countAfter);
  const stranger = await newTenant();
  expect((await call(stranger, 'PUT', url, { voc_ids: [] })).statusCode).toBe(404);
  expect((await call(t, 'PUT', url, { voc_ids: [] })).json()).toEqual([]);
});

it('keeps who heard it when a colleague edits the VOC without naming anyone', async () => {
  const t = await newTenant();
  const colleague = await account(t.tenantId, '地域 太郎', 'member');
  const id = (await call(t, 'POST', '/api/vocs', voc())).json().id;
  const edited = await call(colleague, 'PUT', `/api/vocs/${id}`, { ...voc(), status: 'IN_PROGRESS' });
  expect(edited.statusCode, edited.body).toBe(200);
  expect(edited.json()).toMatchObject({ status: 'IN_PROGRESS', user: { id: t.accountId, name: '連携 花子' } });
});
