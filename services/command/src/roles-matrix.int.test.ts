import { afterAll, beforeAll, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { createTestDatabase, type TestDatabase } from '@renkei/db';
import { createPostgresEventStore, type EventStore } from '@renkei/event-store';
import { walkRolesMatrix, type TestAuth } from '@renkei/service-kit/testing';
import { buildTestCommandApp } from './testing.ts';

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

it('answers every command endpoint for member, owner and the support accounts as the roles matrix says', async () => {
  const tenantId = crypto.randomUUID();
  const { checked, mismatches } = await walkRolesMatrix({
    app,
    service: 'command',
    served: app.servedEndpointIds(),
    token: (caller) => testAuth.token({ tenantId, ...caller }),
  });
  expect(mismatches).toEqual([]);
  expect(checked).toBeGreaterThan(0);
});
