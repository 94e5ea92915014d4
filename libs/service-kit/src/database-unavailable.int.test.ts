import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { FastifyInstance } from 'fastify';
import { endpoint, type Audience } from '@renkei/contracts';
import { createTestDatabase, openDatabase, type Database, type TestDatabase } from '@renkei/db';
import { createServiceApp } from './service-app.ts';
import { registerEndpoint } from './register-endpoint.ts';
import { createTestAuth, type TestAuth } from './testing/test-auth.ts';
import { memoryAccountEvents } from './testing/account-events.ts';

const audience = 'https://api.renkei.test/query';

const reading = endpoint({
  id: 'test.readsDatabase',
  area: 'test',
  method: 'GET',
  path: '/reads_database',
  service: 'query',
  summary: 'one query on the database it is given',
  response: z.object({ ok: z.boolean() }),
  successStatus: 200,
  feature: null,
  served: true,
});

let testDb: TestDatabase;
let testAuth: TestAuth;

async function appOn(db: Database): Promise<FastifyInstance> {
  const app = await createServiceApp({
    name: 'test',
    audience: 'query' as Audience,
    auth: testAuth.authFor(audience),
    accountEvents: memoryAccountEvents().store,
    logger: false,
    openapi: { openapi: '3.1.0', info: { title: 'test', version: '1' }, paths: {} },
    underPressure: false,
    rateLimit: false,
  });
  registerEndpoint(app, reading, async () => {
    await db.pool.query('select 1');
    return { ok: true };
  });
  return app;
}

async function expectOverloadAnswer(app: FastifyInstance): Promise<void> {
  const res = await app.inject({
    url: '/api/reads_database',
    headers: { authorization: `Bearer ${await testAuth.token()}`, 'x-request-id': 'req-overload' },
  });
  expect(res.statusCode).toBe(503);
  expect(res.headers['retry-after']).toBe('5');
  expect(res.json()).toEqual({
    status: 503,
    message: 'ただいまアクセスが集中しています。しばらくしてから再度お試しください。',
    request_id: 'req-overload',
  });
}

beforeAll(async () => {
  testDb = await createTestDatabase({ poolMax: 2 });
  testAuth = await createTestAuth({ audience });
});
afterAll(async () => {
  await testDb?.close();
});

describe('a database that cannot take the request', () => {
  it('answers 503 with Retry-After when PostgreSQL is out of connections (53300 too_many_connections)', async () => {
    // A role limited to one connection stands for a server at max_connections without exhausting the
    // shared test server: the second connection is refused with the same SQLSTATE.
    const role = `renkei_limited_${randomBytes(4).toString('hex')}`;
    await testDb.pool.query(`CREATE ROLE ${role} LOGIN CONNECTION LIMIT 1`);
    const url = new URL(testDb.url);
    url.username = role;
    const limited = await openDatabase({ url: url.toString(), poolMax: 4 });
    const app = await appOn(limited);
    const held = await limited.pool.connect();
    try {
      await expectOverloadAnswer(app);
      held.release();
      const res = await app.inject({
        url: '/api/reads_database',
        headers: { authorization: `Bearer ${await testAuth.token()}` },
      });
      expect(res.statusCode).toBe(200);
    } finally {
      await app.close();
      await limited.close();
      await testDb.pool.query(`DROP ROLE ${role}`);
    }
  });

  it("answers 503 with Retry-After when the pool's acquire timeout passes (every connection busy)", async () => {
    const tiny = await openDatabase({ url: testDb.url, poolMax: 1 });
    // openDatabase sets no acquire timeout; pg-pool reads it on every connect, so the test sets one.
    (tiny.pool as unknown as { options: { connectionTimeoutMillis: number } }).options.connectionTimeoutMillis = 100;
    const app = await appOn(tiny);
    const held = await tiny.pool.connect();
    try {
      await expectOverloadAnswer(app);
    } finally {
      held.release();
      await app.close();
      await tiny.close();
    }
  });
});
