import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { featureKeys } from '@renkei/contracts';
import { createTestDatabase, type TestDatabase } from '@renkei/db';
import {
  createPostgresEventStore,
  newEventMetadata,
  streamId,
  type EventStore,
  type NewEvent,
} from '@renkei/event-store';
import type { TestAuth } from '@renkei/service-kit/testing';
import { buildTestCommandApp, injectAs, tenantEventCount, type WriteMethod } from '../testing.ts';

let db: TestDatabase;
let store: EventStore;
let app: FastifyInstance;
let testAuth: TestAuth;

// Every test runs twice: names held by a guard in the append's transaction (the Postgres store), and
// reserved, appended and freed in sequence (a store without guards: EventStoreDB).
describe.each([
  ['names held by the append guard', true],
  ['names reserved in sequence (a store without guards)', false],
])('tag commands, %s', (_variant, guards) => {
  beforeAll(async () => {
    db = await createTestDatabase();
    const real = await createPostgresEventStore(db);
    // A store that fails like a bug would, for one magic name, to prove what a 500 looks like.
    const boom = (events: readonly NewEvent[]) => {
      if ((events[0]?.data as { name?: string } | undefined)?.name === 'BOOM')
        throw new Error('connection secret leaked');
    };
    store = {
      ...real,
      supportsGuards: guards,
      append: async (stream, events, options) => {
        boom(events);
        return real.append(stream, events, options);
      },
    };
    ({ app, testAuth } = await buildTestCommandApp(db, store));
  });

  afterAll(async () => {
    await app?.close();
    await store?.close();
    await db?.close();
  });

  const tenant = () => ({ tenantId: randomUUID(), accountId: randomUUID() });
  type Caller = ReturnType<typeof tenant>;

  const call = (
    caller: Caller,
    method: WriteMethod,
    url: string,
    payload?: unknown,
    headers?: Record<string, string>,
  ) => injectAs({ app, testAuth }, caller, method, url, payload, headers);

  const eventCount = (tenantId: string) => tenantEventCount(db, tenantId);

  /** Registers the caller's tenant (as identity would) with a `max_tag_count`. */
  async function registerWithTagLimit(caller: Caller, slug: string, maxTagCount: number) {
    await store.append(
      streamId('tenant', caller.tenantId),
      [
        {
          type: 'TenantRegistered',
          data: {
            tenant_id: caller.tenantId,
            slug,
            name: '上限病院',
            plan: 'basic',
            features: [...featureKeys],
            limits: { max_account_count: null, max_tag_count: maxTagCount },
          },
          metadata: newEventMetadata(caller.tenantId),
        },
      ],
      { expectedRevision: 'no_stream' },
    );
  }

  async function create(caller: Caller, name: string, extra: Record<string, unknown> = {}) {
    const res = await call(caller, 'POST', '/api/tags', { name, description: '', ...extra });
    expect(res.statusCode, res.body).toBe(201);
    return res.json() as { id: string; name: string; version: number };
  }

  describe('commands', () => {
    it('creates a tag with its version, ETag and position', async () => {
      const caller = tenant();
      const res = await call(caller, 'POST', '/api/tags', {
        name: '  重点先 ',
        description: '説明',
        group_name: '地域',
      });
      expect(res.statusCode).toBe(201);
      const tag = res.json();
      expect(tag).toMatchObject({
        name: '重点先',
        description: '説明',
        group_name: '地域',
        medical_institution_count: 0,
        version: 0,
      });
      expect(res.headers.etag).toBe('"0"');
      expect(res.headers['x-position']).toMatch(/^\d+\.\d+$/);
      const events = await store.readStream(streamId('tag', tag.id), { tenantId: caller.tenantId });
      expect(events.map((e) => e.type)).toEqual(['TagCreated']);
      expect(events[0]!.metadata).toMatchObject({ tenant_id: caller.tenantId, account_id: caller.accountId });
    });

    it('refuses a name already used, including its 全角/半角 variant, and writes nothing', async () => {
      const caller = tenant();
      await create(caller, 'ABC ｶﾞﾝ');
      const before = await eventCount(caller.tenantId);
      for (const name of ['ABC ｶﾞﾝ', 'ＡＢＣ　ガン', ' ABC  ガン ']) {
        const res = await call(caller, 'POST', '/api/tags', { name });
        expect(res.statusCode).toBe(422);
        expect(res.json().errors).toEqual([{ field: 'name', message: 'このタグ名は既に登録されています。' }]);
      }
      expect(await eventCount(caller.tenantId)).toBe(before);
      // Another tenant may use the same name.
      await create(tenant(), 'ABC ｶﾞﾝ');
    });

    it('answers 422 with field errors for bad bodies and writes no event', async () => {
      const caller = tenant();
      const bodies = [
        {},
        { name: '' },
        { name: '   ' },
        { name: 'x'.repeat(51) },
        { name: 1 },
        { name: 'a', description: 'x'.repeat(201) },
      ];
      for (const body of bodies) {
        const res = await call(caller, 'POST', '/api/tags', body);
        expect(res.statusCode, JSON.stringify(body)).toBe(422);
        const json = res.json();
        expect(json.status).toBe(422);
        expect(json.errors.length).toBeGreaterThan(0);
        for (const e of json.errors) expect(e.message).toMatch(/[ぁ-んァ-ン一-龥]/);
      }
      expect((await call(caller, 'POST', '/api/tags', {})).json().errors[0].field).toBe('name');
      const tag = await create(caller, 'ok');
      const res = await call(caller, 'PUT', `/api/tags/${tag.id}`, { name: '' });
      expect(res.statusCode).toBe(422);
      expect(await eventCount(caller.tenantId)).toBe(1);
    });

    it("answers 404 for another tenant's tag on every tag endpoint, and for unknown ids", async () => {
      const owner = tenant();
      const tag = await create(owner, '他院');
      const intruder = tenant();
      expect((await call(intruder, 'PUT', `/api/tags/${tag.id}`, { name: '乗っ取り' })).statusCode).toBe(404);
      expect(
        (await call(intruder, 'PUT', `/api/tags/${tag.id}`, { name: '乗っ取り' }, { 'if-match': '0' })).statusCode,
      ).toBe(404);
      expect((await call(intruder, 'DELETE', `/api/tags/${tag.id}`)).statusCode).toBe(404);
      expect((await call(owner, 'DELETE', `/api/tags/${randomUUID()}`)).statusCode).toBe(404);
      expect((await call(owner, 'DELETE', '/api/tags/not-an-id')).statusCode).toBe(404);
      const events = await store.readStream(streamId('tag', tag.id), { tenantId: owner.tenantId });
      expect(events).toHaveLength(1);
    });

    it('lets exactly one of 50 concurrent renames with the same If-Match win', async () => {
      const caller = tenant();
      const tag = await create(caller, '元の名前');
      const results = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          call(caller, 'PUT', `/api/tags/${tag.id}`, { name: `新しい名前${i}` }, { 'if-match': '"0"' }),
        ),
      );
      const codes = results.map((r) => r.statusCode);
      expect(codes.filter((c) => c === 200)).toHaveLength(1);
      expect(codes.filter((c) => c === 409)).toHaveLength(49);
      const winner = results.find((r) => r.statusCode === 200)!.json();
      expect(winner.version).toBe(1);
      const events = await store.readStream(streamId('tag', tag.id), { tenantId: caller.tenantId });
      expect(events).toHaveLength(2);
      expect((events[1]!.data as { name: string }).name).toBe(winner.name);
      // The losers' names were released, the old name too: all can be used again.
      await create(caller, '元の名前');
      await create(caller, results.find((r) => r.statusCode === 409) ? `新しい名前${codes.indexOf(409)}` : 'x');
    });

    it('applies or refuses each concurrent write without If-Match, and keeps the last applied one', async () => {
      const caller = tenant();
      const tag = await create(caller, 'start');
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          call(caller, 'PUT', `/api/tags/${tag.id}`, { name: `name-${i}`, description: `d${i}` }),
        ),
      );
      for (const r of results) expect([200, 409]).toContain(r.statusCode);
      const applied = results
        .filter((r) => r.statusCode === 200)
        .map((r) => r.json() as { name: string; version: number });
      expect(applied.length).toBeGreaterThan(0);
      expect(new Set(applied.map((a) => a.version)).size).toBe(applied.length);
      const last = applied.reduce((a, b) => (b.version > a.version ? b : a));
      const events = await store.readStream(streamId('tag', tag.id), { tenantId: caller.tenantId });
      expect(events).toHaveLength(applied.length + 1);
      expect((events.at(-1)!.data as { name: string }).name).toBe(last.name);
      const { rows } = await sql<{ normalized_name: string }>`
      SELECT normalized_name FROM cmd.tag_names WHERE tenant_id = ${caller.tenantId}`.execute(db.kysely);
      expect(rows.map((r) => r.normalized_name)).toEqual([last.name]);
    });

    it('returns the same tag for a retried POST with the same Idempotency-Key', async () => {
      const caller = tenant();
      const key = randomUUID();
      const first = await call(caller, 'POST', '/api/tags', { name: '再送' }, { 'idempotency-key': key });
      const again = await call(caller, 'POST', '/api/tags', { name: '再送' }, { 'idempotency-key': key });
      expect(first.statusCode).toBe(201);
      expect(again.statusCode).toBe(201);
      expect(again.json()).toEqual(first.json());
      expect(again.headers['x-position']).toBe(first.headers['x-position']);
      const concurrent = await Promise.all(
        Array.from({ length: 10 }, () =>
          call(caller, 'POST', '/api/tags', { name: '同時' }, { 'idempotency-key': 'k-2' }),
        ),
      );
      expect(new Set(concurrent.map((r) => r.statusCode))).toEqual(new Set([201]));
      expect(new Set(concurrent.map((r) => r.json().id)).size).toBe(1);
      expect(await eventCount(caller.tenantId)).toBe(2);
      const mismatch = await call(caller, 'POST', '/api/tags', { name: '別物' }, { 'idempotency-key': key });
      expect(mismatch.statusCode).toBe(422);
      expect(await eventCount(caller.tenantId)).toBe(2);
      // A key whose first request failed may be sent again with a corrected body.
      const refused = await call(caller, 'POST', '/api/tags', { name: '再送' }, { 'idempotency-key': 'k-3' });
      expect(refused.statusCode).toBe(422);
      const corrected = await call(caller, 'POST', '/api/tags', { name: '訂正後' }, { 'idempotency-key': 'k-3' });
      expect(corrected.statusCode).toBe(201);
      expect(corrected.json().name).toBe('訂正後');
      expect(await eventCount(caller.tenantId)).toBe(3);
    });

    it('enforces max_tag_count from the tenant settings and frees a slot on delete', async () => {
      const caller = tenant();
      await registerWithTagLimit(caller, 'limit', 2);
      const a = await create(caller, 'a');
      await create(caller, 'b');
      const over = await call(caller, 'POST', '/api/tags', { name: 'c' });
      expect(over.statusCode).toBe(422);
      expect(over.json().message).toContain('2');
      // Renaming within the limit is not a new tag.
      expect((await call(caller, 'PUT', `/api/tags/${a.id}`, { name: 'a2' })).statusCode).toBe(200);
      const concurrent = await Promise.all(['d', 'e', 'f'].map((name) => call(caller, 'POST', '/api/tags', { name })));
      expect(concurrent.every((r) => r.statusCode === 422)).toBe(true);
      expect((await call(caller, 'DELETE', `/api/tags/${a.id}`)).statusCode).toBe(204);
      await create(caller, 'c');
    });

    it('keeps names unique and the limit exact when many creates of several tenants arrive together', async () => {
      // Enough at once that reservations and appends leave in shared batches (group commit).
      const limited = tenant();
      await registerWithTagLimit(limited, 'batch-limit', 5);
      const open = tenant();
      const requests = [
        // 12 names for a tenant allowed 5 tags: exactly 5 are created.
        ...Array.from({ length: 12 }, (_, i) => ({ caller: limited, name: `上限${i}` })),
        // The same name 8 times, in 全角 and 半角: exactly one is created.
        ...Array.from({ length: 8 }, (_, i) => ({ caller: open, name: i % 2 ? 'ﾀｸﾞ' : 'タグ' })),
        // 10 different names: all are created.
        ...Array.from({ length: 10 }, (_, i) => ({ caller: open, name: `別名${i}` })),
      ];
      const responses = await Promise.all(
        requests.map(({ caller, name }) => call(caller, 'POST', '/api/tags', { name, description: '' })),
      );
      const statuses = (from: number, to: number) => responses.slice(from, to).map((r) => r.statusCode);
      expect(statuses(0, 12).filter((s) => s === 201)).toHaveLength(5);
      expect(statuses(0, 12).filter((s) => s === 422)).toHaveLength(7);
      expect(statuses(12, 20).filter((s) => s === 201)).toHaveLength(1);
      expect(statuses(12, 20).filter((s) => s === 422)).toHaveLength(7);
      expect(statuses(20, 30)).toEqual(Array(10).fill(201));
      // One event per created tag, nothing for the refused ones.
      expect(await eventCount(limited.tenantId)).toBe(1 + 5);
      expect(await eventCount(open.tenantId)).toBe(1 + 10);
      const { rows } = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM cmd.tag_names WHERE tenant_id IN (${limited.tenantId}, ${open.tenantId})`.execute(
        db.kysely,
      );
      expect(rows[0]!.n).toBe(5 + 1 + 10);
    });

    it('deletes a tag, honours If-Match on delete, and frees its name', async () => {
      const caller = tenant();
      const tag = await create(caller, '削除対象');
      expect((await call(caller, 'DELETE', `/api/tags/${tag.id}`, undefined, { 'if-match': '5' })).statusCode).toBe(
        409,
      );
      const res = await call(caller, 'DELETE', `/api/tags/${tag.id}`, undefined, { 'if-match': '0' });
      expect(res.statusCode).toBe(204);
      expect(res.body).toBe('');
      expect(res.headers['x-position']).toMatch(/^\d+\.\d+$/);
      expect((await call(caller, 'PUT', `/api/tags/${tag.id}`, { name: 'x' })).statusCode).toBe(404);
      expect((await call(caller, 'DELETE', `/api/tags/${tag.id}`)).statusCode).toBe(404);
      await create(caller, '削除対象');
    });

    it('answers 401 without a token and 403 when the tags feature is off', async () => {
      const anonymous = await app.inject({ method: 'POST', url: '/api/tags', payload: { name: 'x' } });
      expect(anonymous.statusCode).toBe(401);
      const token = await testAuth.token({ features: featureKeys.filter((f) => f !== 'tags') });
      const off = await app.inject({
        method: 'POST',
        url: '/api/tags',
        headers: { authorization: `Bearer ${token}` },
        payload: { name: 'x' },
      });
      expect(off.statusCode).toBe(403);
      expect(off.json()).toEqual({
        status: 403,
        message: 'アクセス権限がありません。',
        request_id: expect.any(String),
      });
    });

    it('answers a thrown bug with a 500 body carrying only the request id', async () => {
      const caller = tenant();
      const res = await call(caller, 'POST', '/api/tags', { name: 'BOOM' }, { 'x-request-id': 'bug-1' });
      expect(res.statusCode).toBe(500);
      expect(res.json()).toEqual({ status: 500, message: '一時的なエラーが発生しました。', request_id: 'bug-1' });
      // The reservation made before the failure was released.
      expect((await call(caller, 'POST', '/api/tags', { name: 'boom' })).statusCode).toBe(201);
    });
  });
});
