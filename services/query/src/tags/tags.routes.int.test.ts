import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { defaultResources, featureKeys, type Tag } from '@renkei/contracts';
import { createTestDatabase, type TestDatabase } from '@renkei/db';
import type { TagEvent } from '@renkei/domain';
import { createPostgresEventStore, formatPosition, streamId, type EventStore } from '@renkei/event-store';
import { startProjections } from '@renkei/projections';
import { createTestAuth, type TestAuth } from '@renkei/service-kit/testing';
import { buildQueryApp, queryProjections } from '../index.ts';

let db: TestDatabase;
let store: EventStore;
let app: FastifyInstance;
let testAuth: TestAuth;
let projections: { stop(): Promise<void> };

beforeAll(async () => {
  db = await createTestDatabase();
  store = await createPostgresEventStore(db);
  projections = startProjections({ db, store, projections: queryProjections });
  testAuth = await createTestAuth({ audience: defaultResources.query });
  app = await buildQueryApp({
    db,
    auth: testAuth.auth,
    logger: false,
    rateLimit: false,
    underPressure: false,
    minPositionTimeoutMs: 10_000,
  });
});

afterAll(async () => {
  await app?.close();
  await projections?.stop();
  await store?.close();
  await db?.close();
});

/** Appends what the command service would append for a tag; returns the X-Position it would answer. */
async function record(tenantId: string, tagId: string, event: TagEvent, expectedRevision: number | 'no_stream') {
  const result = await store.append(
    streamId('tag', tagId),
    [
      {
        ...event,
        metadata: {
          tenant_id: tenantId,
          account_id: null,
          correlation_id: randomUUID(),
          causation_id: null,
          schema_version: 1,
        },
      },
    ],
    { expectedRevision },
  );
  return formatPosition(result.position);
}

const created = (tagId: string, name: string, groupName: string | null = null): TagEvent => ({
  type: 'TagCreated',
  data: { tag_id: tagId, name, description: `${name}の説明`, group_name: groupName },
});

async function get(tenantId: string, url: string, minPosition?: string, features = [...featureKeys]) {
  const token = await testAuth.token({ tenantId, features });
  return app.inject({
    method: 'GET',
    url,
    headers: { authorization: `Bearer ${token}`, ...(minPosition ? { 'x-min-position': minPosition } : {}) },
  });
}

describe('tag queries', () => {
  it('shows a just-recorded tag to a list carrying X-Min-Position, every time', async () => {
    const tenantId = randomUUID();
    for (let i = 0; i < 15; i++) {
      const id = randomUUID();
      const position = await record(tenantId, id, created(id, `即時${String(i).padStart(2, '0')}`), 'no_stream');
      const res = await get(tenantId, '/api/tags?per_page=100', position);
      expect(res.statusCode).toBe(200);
      expect(res.json().data.map((t: Tag) => t.id)).toContain(id);
    }
  });

  it('pages and sorts by name, only within the caller tenant', async () => {
    const tenantId = randomUUID();
    const other = randomUUID();
    let position = '';
    for (let i = 0; i < 25; i++) {
      const id = randomUUID();
      position = await record(tenantId, id, created(id, `タグ${String(i).padStart(2, '0')}`), 'no_stream');
    }
    const foreignId = randomUUID();
    const foreignPosition = await record(other, foreignId, created(foreignId, '他テナント'), 'no_stream');
    const first = (await get(tenantId, '/api/tags', position)).json();
    expect(first.meta).toEqual({ total_count: 25, page: 1, per_page: 20, total_pages: 2 });
    expect(first.data.map((t: Tag) => t.name)).toEqual(
      Array.from({ length: 20 }, (_, i) => `タグ${String(i).padStart(2, '0')}`),
    );
    expect(first.data[0]).toMatchObject({
      description: 'タグ00の説明',
      medical_institution_count: 0,
      version: 0,
      group_name: null,
    });
    const second = (await get(tenantId, '/api/tags?page=2&per_page=20&sort=asc')).json();
    expect(second.data).toHaveLength(5);
    const desc = (await get(tenantId, '/api/tags?sort=desc&per_page=3')).json();
    expect(desc.data.map((t: Tag) => t.name)).toEqual(['タグ24', 'タグ23', 'タグ22']);
    const beyond = (await get(tenantId, '/api/tags?page=9')).json();
    expect(beyond).toEqual({ data: [], meta: { total_count: 25, page: 9, per_page: 20, total_pages: 2 } });
    const foreign = (await get(other, '/api/tags', foreignPosition)).json();
    expect(foreign.data.map((t: Tag) => t.id)).toEqual([foreignId]);
  });

  it('reflects renames with their version and removes deleted tags everywhere', async () => {
    const tenantId = randomUUID();
    const id = randomUUID();
    await record(tenantId, id, created(id, '旧名', '地域'), 'no_stream');
    let position = await record(
      tenantId,
      id,
      { type: 'TagUpdated', data: { tag_id: id, name: '新名', description: '', group_name: '地域' } },
      0,
    );
    const renamed = (await get(tenantId, '/api/tags', position)).json();
    expect(renamed.data).toEqual([
      { id, name: '新名', description: '', medical_institution_count: 0, group_name: '地域', version: 1 },
    ]);
    position = await record(tenantId, id, { type: 'TagDeleted', data: { tag_id: id } }, 1);
    expect((await get(tenantId, '/api/tags', position)).json().data).toEqual([]);
    expect((await get(tenantId, '/api/tag_groups', position)).json()).toEqual([]);
  });

  it('lists tag groups with their tags, by name', async () => {
    const tenantId = randomUUID();
    const [a, b, c, d] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
    await record(tenantId, a, created(a, 'い', '病院'), 'no_stream');
    await record(tenantId, b, created(b, 'あ', '病院'), 'no_stream');
    await record(tenantId, c, created(c, 'う', '診療所'), 'no_stream');
    const position = await record(tenantId, d, created(d, '無所属'), 'no_stream');
    const groups = (await get(tenantId, '/api/tag_groups', position)).json();
    expect(groups.map((g: { name: string }) => g.name).sort()).toEqual(['病院', '診療所'].sort());
    const hospital = groups.find((g: { name: string }) => g.name === '病院');
    expect(hospital.description).toBe('');
    expect(hospital.tags.map((t: Tag) => t.name)).toEqual(['あ', 'い']);
    expect(groups.flatMap((g: { tags: Tag[] }) => g.tags).map((t: Tag) => t.id)).not.toContain(d);
    expect((await get(randomUUID(), '/api/tag_groups')).json()).toEqual([]);
  });

  it('answers 422 for bad query strings, 401 without a token and 403 when the feature is off', async () => {
    const tenantId = randomUUID();
    for (const q of ['per_page=1000', 'page=0', 'sort=sideways', 'page=abc']) {
      const res = await get(tenantId, `/api/tags?${q}`);
      expect(res.statusCode, q).toBe(422);
      expect(res.json().errors[0].field).toBe(q.split('=')[0]);
    }
    expect((await app.inject({ method: 'GET', url: '/api/tags' })).statusCode).toBe(401);
    expect((await get(tenantId, '/api/tags', undefined, ['dashboard'])).statusCode).toBe(403);
    expect((await get(tenantId, '/api/tag_groups', undefined, ['dashboard'])).statusCode).toBe(403);
  });

  it('answers 503 when the read models do not reach X-Min-Position in time', async () => {
    const impatient = await buildQueryApp({
      db,
      auth: testAuth.auth,
      logger: false,
      rateLimit: false,
      minPositionTimeoutMs: 100,
    });
    try {
      const token = await testAuth.token();
      const res = await impatient.inject({
        method: 'GET',
        url: '/api/tags',
        headers: { authorization: `Bearer ${token}`, 'x-min-position': '99999999999.1' },
      });
      expect(res.statusCode).toBe(503);
      expect(res.json().status).toBe(503);
    } finally {
      await impatient.close();
    }
  });
});
