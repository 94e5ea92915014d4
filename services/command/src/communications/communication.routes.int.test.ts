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
let institution: string;

beforeAll(async () => {
  db = await createTestDatabase();
  store = await createPostgresEventStore(db);
  ({ app, testAuth } = await buildTestCommandApp(db, store));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'renkei-communications-'));
  await generateInstitutionMaster(path.join(dir, 'm.csv'), { count: 2, seed: 11 });
  await importInstitutionMaster(db, path.join(dir, 'm.csv'));
  fs.rmSync(dir, { recursive: true });
  const { rows } = await sql<{ id: string }>`SELECT id FROM ref.medical_institutions ORDER BY code`.execute(db.kysely);
  institution = rows[0]!.id;
});

afterAll(async () => {
  await app?.close();
  await store?.close();
  await db?.close();
});

interface Caller {
  tenantId: string;
  accountId: string;
}

/** An account of the tenant, registered as the identity service would. */
async function account(tenantId: string, username: string): Promise<Caller> {
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

const newTenant = () => account(randomUUID(), '連携 花子');
const call = (caller: Caller, method: WriteMethod, url: string, payload?: unknown, headers?: Record<string, string>) =>
  injectAs({ app, testAuth }, caller, method, url, payload, headers);
const visit = { communication_type: 'visit', acted_date: '2026-03-31', story: '院長と面談' };

it('creates a visit with its tasks, once for retries under one Idempotency-Key', async () => {
  const t = await newTenant();
  const colleague = await account(t.tenantId, '地域 太郎');
  const body = { ...visit, tasks: [{ title: '資料送付', staff_id: colleague.accountId, deadline: '2026-04-07' }] };
  const url = `/api/medical_institutions/${institution}/communications`;
  const headers = { 'idempotency-key': 'visit-1' };
  const first = await call(t, 'POST', url, body, headers);
  expect(first.statusCode, first.body).toBe(201);
  expect(first.headers.etag).toBe('"0"');
  expect(first.headers['x-position']).toBeTruthy();
  expect(first.json()).toMatchObject({
    communication_type: 'visit',
    user: { id: t.accountId, name: '連携 花子' },
    medical_institution: { id: institution },
    tasks: [{ title: '資料送付', status: 'incomplete', staff: { id: colleague.accountId, name: '地域 太郎' } }],
    version: 0,
  });
  const count = await tenantEventCount(db, t.tenantId);
  const retry = await call(t, 'POST', url, body, headers);
  expect(retry.statusCode).toBe(201);
  expect(retry.json()).toEqual(first.json());
  expect(await tenantEventCount(db, t.tenantId)).toBe(count);
});

it('writes nothing when a task or a required label is wrong, and names them', async () => {
  const t = await newTenant();
  const label = await call(t, 'POST', '/api/communication_labels', {
    name: '面談相手',
    communication_type: 'visit',
    component_type: 'select',
    selections: [{ label: '院長' }],
    is_required: true,
  });
  expect(label.statusCode, label.body).toBe(201);
  const count = await tenantEventCount(db, t.tenantId);
  const url = `/api/medical_institutions/${institution}/communications`;
  const res = await call(t, 'POST', url, { ...visit, tasks: [{ title: '資料送付', staff_id: randomUUID() }] });
  expect(res.statusCode).toBe(422);
  expect(res.json().errors).toEqual(
    expect.arrayContaining([
      { field: 'label_values', message: '「面談相手」を入力してください' },
      { field: 'tasks.0.staff_id', message: 'タスクの担当者が見つかりません' },
    ]),
  );
  const empty = await call(t, 'POST', url, { ...visit, tasks: [{ title: '' }] });
  expect(empty.statusCode).toBe(422);
  expect(await tenantEventCount(db, t.tenantId)).toBe(count);
  const selection = label.json().selections[0].id;
  const ok = await call(t, 'POST', url, {
    ...visit,
    label_values: [{ label_id: label.json().id, selection_id: selection }],
  });
  expect(ok.statusCode, ok.body).toBe(201);
  expect(ok.json().label_values).toMatchObject([{ label_id: label.json().id, selection_id: selection }]);
});

it('updates with If-Match: a stale version is a 409; another tenant gets 404', async () => {
  const t = await newTenant();
  const created = await call(t, 'POST', `/api/medical_institutions/${institution}/communications`, visit);
  const id = created.json().id;
  const updated = await call(
    t,
    'PUT',
    `/api/communications/${id}`,
    { ...visit, memo: '次回は部長' },
    { 'if-match': '0' },
  );
  expect(updated.statusCode, updated.body).toBe(200);
  expect(updated.json()).toMatchObject({ memo: '次回は部長', version: 1 });
  expect(updated.headers.etag).toBe('"1"');
  const stale = await call(t, 'PUT', `/api/communications/${id}`, { ...visit, memo: '古い' }, { 'if-match': '0' });
  expect(stale.statusCode).toBe(409);
  const stranger = await newTenant();
  expect((await call(stranger, 'PUT', `/api/communications/${id}`, visit)).statusCode).toBe(404);
  expect((await call(stranger, 'DELETE', `/api/communications/${id}`)).statusCode).toBe(404);
  expect((await call(t, 'DELETE', `/api/communications/${id}`, undefined, { 'if-match': '1' })).statusCode).toBe(204);
  expect((await call(t, 'PUT', `/api/communications/${id}`, visit)).statusCode).toBe(404);
});

/** Five concurrent requests with one key, then one more: every answer alike, one effect. */
async function retried(caller: Caller, url: string, body: unknown, key: string) {
  const headers = { 'idempotency-key': key };
  const answers = await Promise.all(Array.from({ length: 5 }, () => call(caller, 'POST', url, body, headers)));
  const count = await tenantEventCount(db, caller.tenantId);
  answers.push(await call(caller, 'POST', url, body, headers));
  expect(answers[0]!.statusCode, answers[0]!.body).toBe(201);
  for (const r of answers)
    expect({ status: r.statusCode, body: r.json() }).toEqual({ status: 201, body: answers[0]!.json() });
  expect(await tenantEventCount(db, caller.tenantId)).toBe(count);
  return answers[0]!.json();
}

it('answers retried creates of a task, a comment and a communication label (one Idempotency-Key) alike, once', async () => {
  const t = await newTenant();
  const before = await tenantEventCount(db, t.tenantId);
  await retried(t, '/api/tasks', { title: '資料送付', medical_institution_id: institution }, 'task-1');
  expect(await tenantEventCount(db, t.tenantId)).toBe(before + 1);

  const id = (await call(t, 'POST', `/api/medical_institutions/${institution}/communications`, visit)).json().id;
  const beforeComment = await tenantEventCount(db, t.tenantId);
  await retried(t, `/api/communications/${id}/comments`, { comment: '了解です' }, 'comment-1');
  expect(await tenantEventCount(db, t.tenantId)).toBe(beforeComment + 1);
  const other = await call(
    t,
    'POST',
    `/api/communications/${id}/comments`,
    { comment: '別件' },
    { 'idempotency-key': 'comment-1' },
  );
  expect(other.statusCode).toBe(422);

  const label = { name: '同行者', communication_type: 'visit', component_type: 'text', is_required: false };
  await retried(t, '/api/communication_labels', label, 'label-1');
});

it('lets only the author edit or delete a comment; likes are one per user', async () => {
  const t = await newTenant();
  const other = await account(t.tenantId, '地域 太郎');
  const id = (await call(t, 'POST', `/api/medical_institutions/${institution}/communications`, visit)).json().id;
  const comment = await call(t, 'POST', `/api/communications/${id}/comments`, { comment: 'お疲れさまです' });
  expect(comment.statusCode, comment.body).toBe(201);
  expect(comment.json()).toMatchObject({ comment: 'お疲れさまです', user: { id: t.accountId, name: '連携 花子' } });
  const commentUrl = `/api/communications/${id}/comments/${comment.json().id}`;
  const count = await tenantEventCount(db, t.tenantId);
  expect((await call(other, 'PUT', commentUrl, { comment: '横から' })).statusCode).toBe(403);
  expect((await call(other, 'DELETE', commentUrl)).statusCode).toBe(403);
  expect(await tenantEventCount(db, t.tenantId)).toBe(count);
  const edited = await call(t, 'PUT', commentUrl, { comment: '追記です' });
  expect(edited.statusCode).toBe(200);
  expect(edited.json()).toMatchObject({ comment: '追記です' });
  // The edit keeps when the comment was posted (the store's time, within the create answer's clock).
  expect(Math.abs(Date.parse(edited.json().created_date) - Date.parse(comment.json().created_date))).toBeLessThan(1000);
  expect((await call(t, 'DELETE', commentUrl)).statusCode).toBe(204);
  expect((await call(t, 'DELETE', commentUrl)).statusCode).toBe(404);

  for (let i = 0; i < 2; i++) {
    const liked = await call(other, 'PUT', `/api/communications/${id}/likes`);
    expect(liked.statusCode).toBe(200);
    expect(liked.json()).toEqual([{ user: { id: other.accountId, name: '地域 太郎' } }]);
  }
  expect((await call(other, 'DELETE', `/api/communications/${id}/likes`)).statusCode).toBe(204);
  expect((await call(other, 'DELETE', `/api/communications/${id}/likes`)).statusCode).toBe(204);
  // A comment's edit does not make the record's version stale.
  const saved = await call(t, 'PUT', `/api/communications/${id}`, { ...visit, memo: 'x' }, { 'if-match': '0' });
  expect(saved.statusCode).toBe(200);
});

it('manages communication labels: per-type names, If-Match, order', async () => {
  const t = await newTenant();
  const make = (name: string, type = 'visit') =>
    call(t, 'POST', '/api/communication_labels', { name, communication_type: type, component_type: 'text' });
  const a = (await make('目的')).json();
  expect((await make('目的')).statusCode).toBe(422);
  expect((await make('目的', 'phone')).statusCode).toBe(201);
  const b = (await make('結果')).json();
  const renamed = await call(
    t,
    'PUT',
    `/api/communication_labels/${a.id}`,
    {
      name: '訪問目的',
      communication_type: 'visit',
      component_type: 'text',
    },
    { 'if-match': '0' },
  );
  expect(renamed.statusCode, renamed.body).toBe(200);
  expect(renamed.json()).toMatchObject({ name: '訪問目的', version: 1 });
  const stale = await call(t, 'DELETE', `/api/communication_labels/${a.id}`, undefined, { 'if-match': '0' });
  expect(stale.statusCode).toBe(409);
  const all = await call(t, 'PUT', '/api/communication_labels/orders', { label_ids: [b.id, a.id] });
  expect(all.statusCode).toBe(422);
  expect((await call(t, 'DELETE', `/api/communication_labels/${a.id}`)).statusCode).toBe(204);
  const stranger = await newTenant();
  expect((await call(stranger, 'DELETE', `/api/communication_labels/${b.id}`)).statusCode).toBe(404);
});

it('completes a task entered with a communication with If-Match; another tenant gets 404', async () => {
  const t = await newTenant();
  const created = await call(t, 'POST', `/api/medical_institutions/${institution}/communications`, {
    ...visit,
    tasks: [{ title: '資料送付', deadline: '2026-04-07' }],
  });
  const task = created.json().tasks[0];
  const body = { title: '資料送付', deadline: '2026-04-07', medical_institution_id: institution, status: 'finished' };
  const stranger = await newTenant();
  expect((await call(stranger, 'PUT', `/api/tasks/${task.id}`, body)).statusCode).toBe(404);
  const done = await call(t, 'PUT', `/api/tasks/${task.id}`, body, { 'if-match': '0' });
  expect(done.statusCode, done.body).toBe(200);
  expect(done.json()).toMatchObject({
    status: 'finished',
    communication_id: created.json().id,
    medical_institution: { id: institution },
    version: 1,
  });
  expect(
    (await call(t, 'PUT', `/api/tasks/${task.id}`, { ...body, title: '古い' }, { 'if-match': '0' })).statusCode,
  ).toBe(409);
  const standalone = await call(t, 'POST', '/api/tasks', { title: '電話する', staff_id: randomUUID() });
  expect(standalone.statusCode).toBe(422);
  const ok = await call(t, 'POST', '/api/tasks', { title: '電話する', communication_id: created.json().id });
  expect(ok.statusCode, ok.body).toBe(201);
  expect((await call(t, 'DELETE', `/api/tasks/${ok.json().id}`)).statusCode).toBe(204);
  expect((await call(t, 'DELETE', `/api/tasks/${ok.json().id}`)).statusCode).toBe(404);
});

it('honours If-Match on a comment (its number of edits) and on the label order (its number of saves)', async () => {
  const t = await newTenant();
  const id = (await call(t, 'POST', `/api/medical_institutions/${institution}/communications`, visit)).json().id;
  const other = await account(t.tenantId, '地域 太郎');
  const posted = await call(t, 'POST', `/api/communications/${id}/comments`, { comment: '一回目' });
  expect(posted.json()).toMatchObject({ comment: '一回目', version: 0 });
  expect(posted.headers.etag).toBe('"0"');
  const comment = posted.json();
  const commentUrl = `/api/communications/${id}/comments/${comment.id}`;
  const edited = await call(t, 'PUT', commentUrl, { comment: '二回目' }, { 'if-match': '"0"' });
  expect(edited.statusCode, edited.body).toBe(200);
  expect(edited.json()).toMatchObject({ comment: '二回目', version: 1 });
  expect(edited.headers.etag).toBe('"1"');
  const count = await tenantEventCount(db, t.tenantId);
  const stale = await call(t, 'PUT', commentUrl, { comment: '三回目' }, { 'if-match': '"0"' });
  expect(stale.statusCode).toBe(409);
  expect((await call(t, 'DELETE', commentUrl, undefined, { 'if-match': '"0"' })).statusCode).toBe(409);
  // Someone else is refused whatever version they send.
  expect((await call(other, 'PUT', commentUrl, { comment: '横から' }, { 'if-match': '"1"' })).statusCode).toBe(403);
  expect((await call(other, 'DELETE', commentUrl, undefined, { 'if-match': '"1"' })).statusCode).toBe(403);
  expect(await tenantEventCount(db, t.tenantId)).toBe(count);
  // The record's answer carries each comment's version, the If-Match its next edit sends.
  const record = await call(t, 'PUT', `/api/communications/${id}`, { ...visit, memo: '追記' }, { 'if-match': '0' });
  expect(record.json().comments).toMatchObject([{ id: comment.id, comment: '二回目', version: 1 }]);
  expect((await call(t, 'DELETE', commentUrl, undefined, { 'if-match': '"1"' })).statusCode).toBe(204);

  const labels = [];
  for (const name of ['同行者', '面談相手'])
    labels.push(
      (
        await call(t, 'POST', '/api/communication_labels', {
          name,
          communication_type: 'visit',
          component_type: 'text',
        })
      ).json().id,
    );
  const order = await call(t, 'PUT', '/api/communication_labels/orders', { label_ids: [...labels].reverse() });
  expect(order.statusCode, order.body).toBe(200);
  expect(order.headers.etag).toBe('"1"');
  const before = await tenantEventCount(db, t.tenantId);
  const staleOrder = await call(
    t,
    'PUT',
    '/api/communication_labels/orders',
    { label_ids: labels },
    { 'if-match': '"0"' },
  );
  expect(staleOrder.statusCode).toBe(409);
  expect(await tenantEventCount(db, t.tenantId)).toBe(before);
  const next = await call(t, 'PUT', '/api/communication_labels/orders', { label_ids: labels }, { 'if-match': '"1"' });
  expect(next.statusCode).toBe(200);
  expect(next.headers.etag).toBe('"2"');
});

it('keeps who acted when a colleague edits a record without naming anyone', async () => {
  const t = await newTenant();
  const colleague = await account(t.tenantId, '地域 太郎');
  const id = (await call(t, 'POST', `/api/medical_institutions/${institution}/communications`, visit)).json().id;
  const edited = await call(colleague, 'PUT', `/api/communications/${id}`, { ...visit, memo: '追記' });
  expect(edited.statusCode, edited.body).toBe(200);
  expect(edited.json()).toMatchObject({ memo: '追記', user: { id: t.accountId, name: '連携 花子' } });
});
