import { afterAll, beforeAll, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { assertServedConsistency, defaultResources } from '@renkei/contracts';
import { createTestDatabase, type TestDatabase } from '@renkei/db';
import { createPostgresEventStore, type EventStore } from '@renkei/event-store';
import { createTestAuth } from '@renkei/service-kit/testing';
import { buildCommandApp } from './index.ts';

let db: TestDatabase;
let store: EventStore;
let app: FastifyInstance;

beforeAll(async () => {
  db = await createTestDatabase();
  store = await createPostgresEventStore(db);
  const testAuth = await createTestAuth({ audience: defaultResources.command });
  app = await buildCommandApp({ db, store, auth: testAuth.auth, logger: false, emailTrackingJournalDir: null });
});

afterAll(async () => {
  await app?.close();
  await store?.close();
  await db?.close();
});

it('has a handler for every command entry marked served, and no handler for any other', () => {
  expect(assertServedConsistency('command', app.servedEndpointIds())).toEqual({
    missingHandlers: [],
    unregisteredHandlers: [],
  });
});
