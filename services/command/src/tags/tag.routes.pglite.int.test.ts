import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { featureKeys } from '@renkei/contracts';
import { openDatabase, type Database } from '@renkei/db';
import { createPostgresEventStore, newEventMetadata, streamId, type EventStore } from '@renkei/event-store';
import type { TestAuth } from '@renkei/service-kit/testing';
import { buildTestCommandApp } from '../testing.ts';

// The embedded default has one connection: reservations, limits and idempotency must not wait on a
// second one while a transaction is open.
let dataDir: string;
let db: Database;
let store: EventStore;
let app: FastifyInstance;
let testAuth: TestAuth;

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'renkei-tags-pglite-'));
  db = await openDatabase({ dataDir });
  store = await createPostgresEventStore(db);
  ({ app, testAuth } = await buildTestCommandApp(db, store));
});

afterAll(async () => {
  await app?.close();
  await store?.close();
  await db?.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

it('creates, renames, limits and deletes tags on the embedded database under concurrency', async () => {
  const tenantId = randomUUID();
  await store.append(
    streamId('tenant', tenantId),
    [
      {
        type: 'TenantRegistered',
        data: {
          tenant_id: tenantId,
          slug: 's',
          name: 'n',
          plan: 'basic',
          features: [...featureKeys],
          limits: { max_account_count: null, max_tag_count: 5 },
        },
        metadata: newEventMetadata(tenantId),
      },
    ],
    { expectedRevision: 'no_stream' },
  );
  const headers = { authorization: `Bearer ${await testAuth.token({ tenantId })}` };
  const creates = await Promise.all(
    Array.from({ length: 8 }, (_, i) =>
      app.inject({ method: 'POST', url: '/api/tags', headers, payload: { name: `タグ${i % 6}` } }),
    ),
  );
  const codes = creates.map((r) => r.statusCode).sort();
  expect(codes.filter((c) => c === 201)).toHaveLength(5);
  expect(codes.filter((c) => c === 422)).toHaveLength(3);
  const tag = creates.find((r) => r.statusCode === 201)!.json();
  const renames = await Promise.all(
    Array.from({ length: 5 }, (_, i) =>
      app.inject({
        method: 'PUT',
        url: `/api/tags/${tag.id}`,
        headers: { ...headers, 'if-match': '0' },
        payload: { name: `新${i}` },
      }),
    ),
  );
  expect(renames.map((r) => r.statusCode).sort()).toEqual([200, 409, 409, 409, 409]);
  const retried = await Promise.all(
    Array.from({ length: 3 }, () => app.inject({ method: 'DELETE', url: `/api/tags/${tag.id}`, headers })),
  );
  expect(retried.map((r) => r.statusCode).filter((c) => c === 204)).toHaveLength(1);
  const again = await app.inject({
    method: 'POST',
    url: '/api/tags',
    headers: { ...headers, 'idempotency-key': 'k' },
    payload: { name: '再作成' },
  });
  const retry = await app.inject({
    method: 'POST',
    url: '/api/tags',
    headers: { ...headers, 'idempotency-key': 'k' },
    payload: { name: '再作成' },
  });
  expect(again.statusCode).toBe(201);
  expect(retry.json().id).toBe(again.json().id);
});
