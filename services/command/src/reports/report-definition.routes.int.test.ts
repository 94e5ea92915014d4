import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { createTestDatabase, type TestDatabase } from '@renkei/db';
import { createPostgresEventStore, newEventMetadata, streamId, type EventStore } from '@renkei/event-store';
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

interface Caller {
  tenantId: string;
  accountId: string;
  role: 'owner' | 'member';
}

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
  return { tenantId, accountId, role: 'member' };
}

const newTenant = () => account(randomUUID(), '連携 花子');
const call = (caller: Caller, method: WriteMethod, url: string, payload?: unknown, headers?: Record<string, string>) =>
  injectAs({ app, testAuth }, caller, method, url, payload, headers);
const events = (t: Caller) => tenantEventCount(db, t.tenantId);

const body = (over: Record<string, unknown> = {}) => ({
  name: '  紹介元ランキング  ',
  display_items: [{ item_key: 'medical_institution_name' }, { item_key: 'referral_count', aggregation_method: 'sum' }],
  sort_conditions: [{ item_key: 'referral_count', direction: 'desc' }],
  aggregation_settings: { period: { from: '2025-04-01', to: '2026-03-31' } },
  ...over,
});

async function create(t: Caller, kind = 'medical_institution_reports', over: Record<string, unknown> = {}) {
  const res = await call(t, 'POST', `/api/${kind}/definitions`, body(over));
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as { id: string; version: number };
}

it('creates a definition of each kind, trimmed, as the caller', async () => {
  const t = await newTenant();
  const res = await call(t, 'POST', '/api/medical_institution_reports/definitions', body());
  expect(res.statusCode, res.body).toBe(201);
  expect(res.headers.etag).toBe('"0"');
  expect(res.headers['x-position']).toBeTruthy();
  expect(res.json()).toMatchObject({
    kind: 'medical_institution_reports',
    name: '紹介元ランキング',
    display_items: [
      { item_key: 'medical_institution_name', label: null, aggregation_method: null, formula: null },
      { item_key: 'referral_count', aggregation_method: 'sum' },
    ],
    filter_conditions: [],
    aggregation_settings: { period_unit: 'month', comparison_period: null, own_department_ids: [] },
    created_by: { id: t.accountId, name: '連携 花子' },
    alert_date: null,
    version: 0,
  });
  const area = await call(
    t,
    'POST',
    '/api/area_reports/definitions',
    body({ display_items: [{ item_key: 'prefecture' }, { item_key: 'institution_count' }], sort_conditions: [] }),
  );
  expect(area.statusCode, area.body).toBe(201);
  expect(area.json().kind).toBe('area_reports');
});

it('refuses bad definitions with 422 naming the fields, writing nothing', async () => {
  const t = await newTenant();
  const before = await events(t);
  const res = await call(
    t,
    'POST',
    '/api/own_department_reports/definitions',
    body({
      display_items: [
        { item_key: 'medical_institution_name' },
        { item_key: 'referral_count', aggregation_method: 'sum' },
        { item_key: 'referral_count' },
      ],
      filter_conditions: [{ item_key: 'tags', operator: 'eq', values: ['x'] }],
      aggregation_settings: { period: { from: '2019-01-01', to: '2025-03-31' } },
    }),
  );
  expect(res.statusCode).toBe(422);
  expect((res.json().errors as { field: string }[]).map((e) => e.field)).toEqual([
    'display_items.0.item_key',
    'display_items.2.item_key',
    'filter_conditions.0.item_key',
    'aggregation_settings.period',
  ]);
  const zod = await call(t, 'POST', '/api/area_reports/definitions', { name: ' ', display_items: [] });
  expect(zod.statusCode).toBe(422);
  expect((zod.json().errors as { field: string }[]).map((e) => e.field)).toEqual(
    expect.arrayContaining(['name', 'display_items']),
  );
  expect(await events(t)).toBe(before);
});

it('updates with If-Match on its version; a stale one is 409 and writes nothing', async () => {
  const t = await newTenant();
  const { id } = await create(t);
  const url = `/api/medical_institution_reports/definitions/${id}`;
  const updated = await call(t, 'PUT', url, body({ name: '2025年度' }), { 'if-match': '"0"' });
  expect(updated.statusCode, updated.body).toBe(200);
  expect(updated.headers.etag).toBe('"1"');
  expect(updated.json()).toMatchObject({ id, name: '2025年度', version: 1, created_by: { id: t.accountId } });
  const before = await events(t);
  const stale = await call(t, 'PUT', url, body({ name: '古い画面' }), { 'if-match': '"0"' });
  expect(stale.statusCode).toBe(409);
  const staleDelete = await call(t, 'DELETE', url, undefined, { 'if-match': '0' });
  expect(staleDelete.statusCode).toBe(409);
  expect(await events(t)).toBe(before);
  const deleted = await call(t, 'DELETE', url, undefined, { 'if-match': '1' });
  expect(deleted.statusCode).toBe(204);
  expect((await call(t, 'PUT', url, body())).statusCode).toBe(404);
  expect((await call(t, 'DELETE', url)).statusCode).toBe(404);
});

it('answers 404 for another tenant, another kind and a made-up id, writing nothing', async () => {
  const t = await newTenant();
  const other = await newTenant();
  const { id } = await create(t);
  const before = await events(other);
  expect((await call(other, 'PUT', `/api/medical_institution_reports/definitions/${id}`, body())).statusCode).toBe(404);
  expect((await call(other, 'DELETE', `/api/medical_institution_reports/definitions/${id}`)).statusCode).toBe(404);
  expect(await events(other)).toBe(before);
  const mine = await events(t);
  expect((await call(t, 'PUT', `/api/area_reports/definitions/${id}`, body())).statusCode).toBe(404);
  expect((await call(t, 'DELETE', `/api/communication_reports/definitions/${id}`)).statusCode).toBe(404);
  expect((await call(t, 'DELETE', `/api/area_reports/definitions/${randomUUID()}`)).statusCode).toBe(404);
  expect(await events(t)).toBe(mine);
});

it('changes alert settings naming accounts of the tenant only', async () => {
  const t = await newTenant();
  const colleague = await account(t.tenantId, '連携 太郎');
  const stranger = await newTenant();
  const { id } = await create(t);
  const url = `/api/medical_institution_reports/definitions/${id}/alert_settings`;
  const settings = {
    enabled: true,
    conditions: [{ item_key: 'referral_count', operator: 'lte', values: ['0'] }],
    notify_user_ids: [colleague.accountId],
  };
  const ok = await call(t, 'PUT', url, settings, { 'if-match': '0' });
  expect(ok.statusCode, ok.body).toBe(200);
  expect(ok.json()).toEqual(settings);
  expect(ok.headers.etag).toBe('"1"');
  const before = await events(t);
  const bad = await call(t, 'PUT', url, { ...settings, notify_user_ids: [stranger.accountId] });
  expect(bad.statusCode).toBe(422);
  expect(bad.json().errors).toEqual([{ field: 'notify_user_ids.0', message: 'ユーザーが見つかりません' }]);
  expect((await call(t, 'PUT', url, settings, { 'if-match': '0' })).statusCode).toBe(409);
  expect(await events(t)).toBe(before);
  // Only institution reports have alerts.
  const area = await create(t, 'area_reports', {
    display_items: [{ item_key: 'prefecture' }],
    sort_conditions: [],
  });
  expect(
    (await call(t, 'PUT', `/api/medical_institution_reports/definitions/${area.id}/alert_settings`, settings))
      .statusCode,
  ).toBe(404);
  expect((await call(stranger, 'PUT', url, { ...settings, notify_user_ids: [] })).statusCode).toBe(404);
});

it('answers a retry under one Idempotency-Key as the first request', async () => {
  const t = await newTenant();
  const headers = { 'idempotency-key': 'rd-1' };
  const first = await call(t, 'POST', '/api/medical_institution_reports/definitions', body(), headers);
  const before = await events(t);
  const retry = await call(t, 'POST', '/api/medical_institution_reports/definitions', body(), headers);
  expect(retry.json()).toEqual(first.json());
  expect(await events(t)).toBe(before);
});
