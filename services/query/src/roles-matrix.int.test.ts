import { afterAll, beforeAll, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { defaultResources } from '@renkei/contracts';
import { createTestDatabase, type TestDatabase } from '@renkei/db';
import { createTestAuth, walkRolesMatrix, type TestAuth } from '@renkei/service-kit/testing';
import { buildQueryApp } from './index.ts';

let db: TestDatabase;
let app: FastifyInstance;
let testAuth: TestAuth;

beforeAll(async () => {
  db = await createTestDatabase();
  testAuth = await createTestAuth({ audience: defaultResources.query });
  app = await buildQueryApp({ db, auth: testAuth.auth, logger: false, rateLimit: false, underPressure: false });
});

afterAll(async () => {
  await app?.close();
  await db?.close();
});

it('answers every query endpoint for member, owner and the support accounts as the roles matrix says', async () => {
  const tenantId = crypto.randomUUID();
  const { checked, mismatches } = await walkRolesMatrix({
    app,
    service: 'query',
    served: app.servedEndpointIds(),
    token: (caller) => testAuth.token({ tenantId, ...caller }),
  });
  expect(mismatches).toEqual([]);
  expect(checked).toBeGreaterThan(0);
});
