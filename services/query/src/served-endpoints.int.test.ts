import { afterAll, beforeAll, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { assertServedConsistency, defaultResources } from '@renkei/contracts';
import { createTestDatabase, type TestDatabase } from '@renkei/db';
import { createTestAuth } from '@renkei/service-kit/testing';
import { buildQueryApp } from './index.ts';

let db: TestDatabase;
let app: FastifyInstance;

beforeAll(async () => {
  db = await createTestDatabase();
  const testAuth = await createTestAuth({ audience: defaultResources.query });
  app = await buildQueryApp({ db, auth: testAuth.auth, logger: false });
});

afterAll(async () => {
  await app?.close();
  await db?.close();
});

it('has a handler for every query entry marked served, and no handler for any other', () => {
  expect(assertServedConsistency('query', app.servedEndpointIds())).toEqual({
    missingHandlers: [],
    unregisteredHandlers: [],
  });
});
