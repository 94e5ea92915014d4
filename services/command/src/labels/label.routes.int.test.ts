import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { createTestDatabase, type TestDatabase } from '@renkei/db';
import { createPostgresEventStore, type EventStore } from '@renkei/event-store';
import type { TestAuth } from '@renkei/service-kit/testing';
import { buildTestCommandApp, injectAs, tenantEventCount, type WriteMethod } from '../testing.ts';

let db: TestDatabase;
let store: EventStore;
let app: FastifyInstance;
let testAuth: TestAuth;

beforeAll(async () => {
  db = await createTestDatabase();
  store = await createPostgresEventStore(db);
  ({ app, testAuth } = await buildTestCommandApp(db, store));
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
const labels = '/api/medical_institution_labels';
const select = (name: string) => ({ name, component_type: 'select', selections: [{ label: 'A' }, { label: 'B' }] });

describe('medical institution labels', () => {
  it('creates one label for three retries with one Idempotency-Key; the key with another body is a 422', async () => {
    const t = newTenant();
    const headers = { 'idempotency-key': 'label-create-1' };
    const first = await call(t, 'POST', labels, select('重点度'), headers);
    expect(first.statusCode, first.body).toBe(201);
    const count = await tenantEventCount(db, t.tenantId);
    for (let i = 0; i < 2; i++) {
      const retry = await call(t, 'POST', labels, select('重点度'), headers);
      expect(retry.statusCode).toBe(201);
      expect(retry.json()).toEqual(first.json());
      expect(retry.headers.etag).toBe(first.headers.etag);
      expect(retry.headers['x-position']).toBe(first.headers['x-position']);
    }
    expect(await tenantEventCount(db, t.tenantId)).toBe(count);
    const other = await call(t, 'POST', labels, select('別名'), headers);
    expect(other.statusCode).toBe(422);
    expect(other.json().errors[0].field).toBe('Idempotency-Key');
  });

  it('refuses a second label with the same name (after NFKC and trimming), until the first is deleted', async () => {
    const t = newTenant();
    const first = await call(t, 'POST', labels, select('ＡＢ'));
    expect(first.statusCode, first.body).toBe(201);
    const count = await tenantEventCount(db, t.tenantId);
    const same = await call(t, 'POST', labels, { name: ' AB ', component_type: 'integer' });
    expect(same.statusCode).toBe(422);
    expect(same.json().errors).toEqual([{ field: 'name', message: 'このラベル名は既に登録されています' }]);
    const second = await call(t, 'POST', labels, { name: '医師数', component_type: 'integer' });
    expect(second.statusCode).toBe(201);
    const renamed = await call(t, 'PUT', `${labels}/${second.json().id}`, { name: 'AB', component_type: 'integer' });
    expect(renamed.statusCode).toBe(422);
    expect(await tenantEventCount(db, t.tenantId)).toBe(count + 1);
    // Another tenant has its own names.
    expect((await call(newTenant(), 'POST', labels, select('AB'))).statusCode).toBe(201);
    // A label renamed keeps its place and frees its old name.
    const moved = await call(t, 'PUT', `${labels}/${first.json().id}`, select('新名'));
    expect(moved.statusCode, moved.body).toBe(200);
    expect(moved.json().order).toBe(first.json().order);
    expect((await call(t, 'POST', labels, select('AB'))).statusCode).toBe(201);
    expect((await call(t, 'DELETE', `${labels}/${first.json().id}`)).statusCode).toBe(204);
    expect((await call(t, 'POST', labels, select('新名'))).statusCode).toBe(201);
  });

  it('refuses two choices or areas naming one id', async () => {
    const t = newTenant();
    const created = (await call(t, 'POST', labels, select('重点度'))).json();
    const a = created.selections[0].id;
    const res = await call(t, 'PUT', `${labels}/${created.id}`, {
      name: '重点度',
      component_type: 'select',
      selections: [
        { id: a, label: 'A' },
        { id: a, label: 'A2' },
      ],
    });
    expect(res.statusCode).toBe(422);
    expect(res.json().errors).toEqual([{ field: 'selections.1.id', message: '選択肢のIDが他の行と重複しています' }]);
  });

  it('guards the order with If-Match (its number of saves): a stale one is a 409 and writes nothing', async () => {
    const t = newTenant();
    const a = (await call(t, 'POST', labels, select('a'))).json();
    const b = (await call(t, 'POST', labels, select('b'))).json();
    const first = await call(t, 'PUT', `${labels}/orders`, { label_ids: [b.id, a.id] }, { 'if-match': '"0"' });
    expect(first.statusCode, first.body).toBe(200);
    expect(first.headers.etag).toBe('"1"');
    const before = await tenantEventCount(db, t.tenantId);
    for (const version of ['"0"', '"987654"']) {
      const stale = await call(t, 'PUT', `${labels}/orders`, { label_ids: [a.id, b.id] }, { 'if-match': version });
      expect(stale.statusCode).toBe(409);
    }
    expect(await tenantEventCount(db, t.tenantId)).toBe(before);
    const fresh = await call(t, 'PUT', `${labels}/orders`, { label_ids: [a.id, b.id] }, { 'if-match': '"1"' });
    expect(fresh.statusCode, fresh.body).toBe(200);
    expect(fresh.headers.etag).toBe('"2"');
  });

  it('orders every label of the tenant, from the command side’s own records', async () => {
    const t = newTenant();
    const a = (await call(t, 'POST', labels, select('a'))).json();
    const b = (await call(t, 'POST', labels, select('b'))).json();
    expect([a.order, b.order]).toEqual([0, 1]);
    const incomplete = await call(t, 'PUT', `${labels}/orders`, { label_ids: [b.id] });
    expect(incomplete.statusCode).toBe(422);
    expect(incomplete.json().errors[0].field).toBe('label_ids');
    const ordered = await call(t, 'PUT', `${labels}/orders`, { label_ids: [b.id, a.id] });
    expect(ordered.statusCode, ordered.body).toBe(200);
    expect(ordered.json().map((l: { name: string; order: number }) => [l.name, l.order])).toEqual([
      ['b', 0],
      ['a', 1],
    ]);
    const c = (await call(t, 'POST', labels, select('c'))).json();
    expect(c.order).toBe(2);
    const updated = await call(t, 'PUT', `${labels}/${a.id}`, { ...select('a'), description: '説明' });
    expect(updated.json().order).toBe(1);
  });
});
