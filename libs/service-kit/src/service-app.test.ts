import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import type { FastifyInstance } from 'fastify';
import { endpoint, HttpError, IdParams, queryArray, type Audience } from '@renkei/contracts';
import { WrongExpectedRevisionError, type Position } from '@renkei/event-store';
import { createServiceApp, type ServiceAppOptions } from './service-app.ts';
import { registerEndpoint } from './register-endpoint.ts';
import { createTestAuth, type TestAuth } from './testing/test-auth.ts';
import { memoryAccountEvents, type MemoryAccountEvents } from './testing/account-events.ts';

const audience = 'https://api.renkei.test/command';

const echo = endpoint({
  id: 'test.echo',
  area: 'test',
  method: 'POST',
  path: '/things/{id}',
  service: 'command',
  summary: 'echo',
  params: IdParams,
  query: z.object({ tag_ids: queryArray(z.string()).optional(), period: z.object({ from: z.string() }).optional() }),
  body: z.object({ name: z.string().trim().min(1, '名前を入力してください'), count: z.number().int() }),
  response: z.object({ id: z.string(), name: z.string(), tag_ids: z.array(z.string()), from: z.string().nullable() }),
  successStatus: 201,
  feature: 'tags',
  served: true,
});
const ownerOnly = endpoint({
  id: 'test.owner',
  area: 'test',
  method: 'DELETE',
  path: '/things/{id}',
  service: 'command',
  summary: 'owner only',
  params: IdParams,
  response: z.null(),
  successStatus: 204,
  feature: null,
  ownerOnly: true,
  served: true,
});
const failing = endpoint({
  id: 'test.failing',
  area: 'test',
  method: 'GET',
  path: '/failing/{kind}',
  service: 'command',
  summary: 'throws',
  params: z.object({ kind: z.string() }),
  response: z.object({}),
  successStatus: 200,
  feature: null,
  served: true,
});
const reading = endpoint({
  id: 'test.reading',
  area: 'test',
  method: 'GET',
  path: '/reading',
  service: 'query',
  summary: 'reads a projection',
  response: z.object({ ok: z.boolean() }),
  successStatus: 200,
  feature: null,
  served: true,
});

const id = '7d3c2d8e-8f4e-4a55-9a3e-1c1d1e1f1a1b';
let testAuth: TestAuth;
let accountEvents: MemoryAccountEvents;
/** Deleted before the app started: the follower's first read must already know it. */
const deletedBefore = '0b6f5a52-3c1e-4d7a-9a0c-2f4e1b7d9c11';
let app: FastifyInstance;
const waited: { projections: readonly string[]; position: Position }[] = [];
let reachable = true;

async function build(extra: Partial<ServiceAppOptions> = {}): Promise<FastifyInstance> {
  const a = await createServiceApp({
    name: 'test',
    audience: 'command' as Audience,
    auth: testAuth.authFor(audience),
    accountEvents: accountEvents.store,
    logger: false,
    openapi: { openapi: '3.1.0', info: { title: 'test', version: '1' }, paths: {} },
    waitForPosition: async (projections, position) => {
      waited.push({ projections, position });
      return reachable;
    },
    ...extra,
  });
  registerEndpoint(a, echo, async ({ params, body, query, reply }) => {
    reply.position({ primary: 10n, secondary: 42n });
    return { id: params.id, name: body.name, tag_ids: query.tag_ids ?? [], from: query.period?.from ?? null };
  });
  registerEndpoint(a, ownerOnly, async () => null);
  registerEndpoint(a, failing, async ({ params }) => {
    if (params.kind === 'conflict') throw new WrongExpectedRevisionError('tag-x', 1, 2);
    if (params.kind === 'teapot') throw new HttpError(418, 'ティーポット');
    if (params.kind === 'missing') throw Object.assign(new Error('relation "rm.x" does not exist'), { code: '42P01' });
    if (params.kind === 'too-many')
      throw Object.assign(new Error('sorry, too many clients already'), { code: '53300' });
    if (params.kind === 'starting')
      throw Object.assign(new Error('the database system is starting up'), { code: '57P03' });
    if (params.kind === 'acquire') throw new Error('timeout exceeded when trying to connect');
    if (params.kind === 'wrapped')
      throw new Error('append failed', { cause: new Error('Connection terminated due to connection timeout') });
    if (params.kind === 'unique') throw Object.assign(new Error('duplicate key value'), { code: '23505' });
    throw new Error('secret internals: password=hunter2');
  });
  registerEndpoint(a, reading, async () => ({ ok: true }), { reads: ['tags'] });
  return a;
}

beforeAll(async () => {
  testAuth = await createTestAuth({ audience });
  accountEvents = memoryAccountEvents();
  accountEvents.accountUpdated(deletedBefore, id, false);
  app = await build();
});
afterAll(async () => {
  await app.close();
});

const post = async (
  headers: Record<string, string>,
  payload: unknown = { name: ' a ', count: 1 },
  url = `/api/things/${id}`,
) => app.inject({ method: 'POST', url, headers, payload: payload as object });

describe('authentication', () => {
  it('answers 401 without a token, with a foreign key, an expired token or another audience', async () => {
    const tokens = [
      undefined,
      await testAuth.foreignToken(),
      await testAuth.token({ expiresIn: -60 }),
      await testAuth.token({ audience: 'https://api.renkei.test/query' }),
      await testAuth.token({ issuer: 'https://evil.example' }),
    ];
    for (const token of tokens) {
      const res = await post(token ? { authorization: `Bearer ${token}` } : {});
      expect(res.statusCode).toBe(401);
      expect(res.json()).toEqual({ status: 401, message: '認証が必要です。', request_id: expect.any(String) });
    }
  });

  it('answers 401 for alg none, a tampered payload, an unknown key id or a token signed with HS256', async () => {
    const valid = await testAuth.token({ role: 'member' });
    const [header, payload, signature] = valid.split('.') as [string, string, string];
    const b64 = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
    const tampered = `${header}.${b64({ ...claims, role: 'owner' })}.${signature}`;
    const unsigned = `${b64({ alg: 'none', typ: 'JWT' })}.${payload}.`;
    const unknownKid = `${b64({ alg: 'ES256', kid: 'other-key' })}.${payload}.${signature}`;
    const hmac = `${b64({ alg: 'HS256', kid: 'test-key' })}.${payload}.${signature}`;
    for (const token of [tampered, unsigned, unknownKid, hmac, 'not-a-jwt', `${header}.${payload}`]) {
      const res = await post({ authorization: `Bearer ${token}` });
      expect(res.statusCode).toBe(401);
      expect(res.json()).toEqual({ status: 401, message: '認証が必要です。', request_id: expect.any(String) });
    }
    expect((await post({ authorization: `Bearer ${valid}` })).statusCode).toBe(201);
  });

  it('answers 401 for a deleted account, deleted before the app started or while its token is cached', async () => {
    const before = await testAuth.token({ accountId: deletedBefore, tenantId: id });
    expect((await post({ authorization: `Bearer ${before}` })).statusCode).toBe(401);

    const accountId = '5e0c9d3a-71b2-4f7e-8d6a-3b2c1d0e9f8a';
    const token = await testAuth.token({ accountId, tenantId: id });
    expect((await post({ authorization: `Bearer ${token}` })).statusCode).toBe(201);
    accountEvents.accountUpdated(accountId, id, false);
    const deletedAt = Date.now();
    await vi.waitFor(async () => expect((await post({ authorization: `Bearer ${token}` })).statusCode).toBe(401), {
      timeout: 3_000,
      interval: 50,
    });
    // Promptly: within about one poll of the follower, however long the token still lives.
    expect(Date.now() - deletedAt).toBeLessThan(2_500);
    // Other accounts of the tenant are untouched.
    expect((await post({ authorization: `Bearer ${await testAuth.token({ tenantId: id })}` })).statusCode).toBe(201);
  });

  it('answers 403 when the feature is off or an owner-only endpoint is called by a member', async () => {
    const noFeature = await testAuth.token({ features: ['dashboard'] });
    expect((await post({ authorization: `Bearer ${noFeature}` })).statusCode).toBe(403);
    const member = await testAuth.token({ role: 'member' });
    const res = await app.inject({
      method: 'DELETE',
      url: `/api/things/${id}`,
      headers: { authorization: `Bearer ${member}` },
    });
    expect(res.statusCode).toBe(403);
    const owner = await testAuth.token({ role: 'owner' });
    const ok = await app.inject({
      method: 'DELETE',
      url: `/api/things/${id}`,
      headers: { authorization: `Bearer ${owner}` },
    });
    expect(ok.statusCode).toBe(204);
    expect(ok.body).toBe('');
  });
});

describe('validation and serialisation', () => {
  it('answers 400 in the error body for a malformed escape in the query of an endpoint without a query', async () => {
    const token = await testAuth.token();
    for (const qs of ['page=%ZZ', 'keyword=%E3%81%&page=1']) {
      const res = await app.inject({
        method: 'GET',
        url: `/api/reading?${qs}`,
        headers: { authorization: `Bearer ${token}` },
      });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ status: 400, request_id: expect.any(String) });
    }
    const ignored = await app.inject({
      method: 'GET',
      url: '/api/reading?page=2&k=%E3%81%82',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(ignored.statusCode).toBe(200);
  });

  it('validates the body with Japanese messages per field', async () => {
    const token = await testAuth.token();
    const res = await post({ authorization: `Bearer ${token}` }, { name: '  ', count: 'x' });
    expect(res.statusCode).toBe(422);
    const body = res.json();
    expect(body.status).toBe(422);
    expect(body.message).toBe('入力内容に誤りがあります。');
    expect(body.errors).toContainEqual({ field: 'name', message: '名前を入力してください' });
    const count = body.errors.find((e: { field: string }) => e.field === 'count');
    expect(count.message).toMatch(/[ぁ-んァ-ン一-龥]/);
  });

  it('answers 404 for a path id that cannot exist', async () => {
    const token = await testAuth.token();
    const res = await post({ authorization: `Bearer ${token}` }, undefined, '/api/things/not-a-uuid');
    expect(res.statusCode).toBe(404);
  });

  it('decodes the shared query-string format and serialises the response with its status', async () => {
    const token = await testAuth.token();
    const res = await post(
      { authorization: `Bearer ${token}`, 'x-client-version': 'renkei-web/1.0' },
      { name: ' 名前 ', count: 2 },
      `/api/things/${id}?tag_ids=a&tag_ids=b&period[from]=2024-04-01`,
    );
    expect(res.statusCode).toBe(201);
    expect(res.json()).toEqual({ id, name: '名前', tag_ids: ['a', 'b'], from: '2024-04-01' });
    expect(res.headers['x-position']).toBe('10.42');
  });
});

describe('input rules', () => {
  it('answers 422 naming the field for NUL, control characters and lone surrogates in body or query', async () => {
    const auth = { authorization: `Bearer ${await testAuth.token()}` };
    const nul = await post(auth, { name: 'a\u0000b', count: 1 });
    expect(nul.statusCode).toBe(422);
    expect(nul.json()).toEqual({
      status: 422,
      message: '入力内容に誤りがあります。',
      errors: [{ field: 'name', message: '使用できない文字が含まれています。' }],
      request_id: expect.any(String),
    });
    const surrogate = await app.inject({
      method: 'POST',
      url: `/api/things/${id}`,
      headers: { ...auth, 'content-type': 'application/json' },
      payload: '{"name":"\\ud800","count":1}',
    });
    expect(surrogate.statusCode).toBe(422);
    expect(surrogate.json().errors).toEqual([{ field: 'name', message: '使用できない文字が含まれています。' }]);
    const query = await post(auth, undefined, `/api/things/${id}?tag_ids=ok&tag_ids=x%00&period[from]=%1B`);
    expect(query.statusCode).toBe(422);
    expect(query.json().errors.map((e: { field: string }) => e.field)).toEqual(['tag_ids.1', 'period.from']);
    // A lone surrogate sent as the UTF-8 bytes of its code unit.
    const raw = await post(auth, undefined, `/api/things/${id}?tag_ids=ab%ED%A0%80cd`);
    expect(raw.statusCode, raw.body).toBe(422);
    expect(raw.json().errors.map((e: { field: string }) => e.field)).toEqual(['tag_ids']);
    const param = await app.inject({ method: 'GET', url: '/api/failing/a%00', headers: auth });
    expect(param.statusCode).toBe(404);
    const fine = await post(auth, { name: '行1\r\n行2\t𠮷', count: 1 });
    expect(fine.statusCode).toBe(201);
  });

  it('reads a malformed percent-escape as text and answers in the service error body', async () => {
    const auth = { authorization: `Bearer ${await testAuth.token()}` };
    const query = await post(auth, undefined, `/api/things/${id}?tag_ids=%ZZ&tag_ids=%E3%81`);
    expect(query.statusCode).toBe(201);
    expect(query.json().tag_ids).toEqual(['%ZZ', '%E3%81']);
    for (const url of [`/api/things/%ZZ`, '/api/nothing%ZZ', '/api/th%E3ings']) {
      const res = await app.inject({ method: 'DELETE', url, headers: auth });
      expect(res.statusCode, url).toBe(404);
      expect(res.json(), url).toEqual({
        status: 404,
        message: '指定されたデータが見つかりません。',
        request_id: expect.any(String),
      });
      expect(res.headers['x-request-id'], url).toBeTruthy();
    }
  });

  it('marks every API answer no-store, errors included', async () => {
    const auth = { authorization: `Bearer ${await testAuth.token()}` };
    expect((await post(auth)).headers['cache-control']).toBe('no-store');
    expect((await post({})).headers['cache-control']).toBe('no-store');
    expect((await app.inject({ method: 'GET', url: '/api/nothing' })).headers['cache-control']).toBe('no-store');
    expect((await app.inject({ method: 'GET', url: '/healthz' })).headers['cache-control']).toBeUndefined();
  });
});

describe('errors', () => {
  it('turns a thrown bug into a 500 with the request id and no internals', async () => {
    const token = await testAuth.token();
    const res = await app.inject({
      method: 'GET',
      url: '/api/failing/bug',
      headers: { authorization: `Bearer ${token}`, 'x-request-id': 'req-123' },
    });
    expect(res.statusCode).toBe(500);
    expect(res.json()).toEqual({ status: 500, message: '一時的なエラーが発生しました。', request_id: 'req-123' });
    expect(res.body).not.toContain('hunter2');
    expect(res.headers['x-request-id']).toBe('req-123');
  });

  it('maps revision conflicts to 409 and HttpError to its status', async () => {
    const token = await testAuth.token();
    const conflict = await app.inject({
      method: 'GET',
      url: '/api/failing/conflict',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(conflict.statusCode).toBe(409);
    expect(conflict.json().status).toBe(409);
    const teapot = await app.inject({
      method: 'GET',
      url: '/api/failing/teapot',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(teapot.json()).toEqual({ status: 418, message: 'ティーポット', request_id: expect.any(String) });
    const missing = await app.inject({
      method: 'GET',
      url: '/api/failing/missing',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(missing.statusCode).toBe(503);
    expect(missing.body).not.toContain('rm.x');
  });

  it('answers 503 with Retry-After, never 500, when the database is out of connections or not reachable', async () => {
    const token = await testAuth.token();
    for (const kind of ['too-many', 'starting', 'acquire', 'wrapped']) {
      const res = await app.inject({
        method: 'GET',
        url: `/api/failing/${kind}`,
        headers: { authorization: `Bearer ${token}`, 'x-request-id': `req-${kind}` },
      });
      expect(res.statusCode, kind).toBe(503);
      expect(res.headers['retry-after'], kind).toBe('5');
      expect(res.json(), kind).toEqual({
        status: 503,
        message: 'ただいまアクセスが集中しています。しばらくしてから再度お試しください。',
        request_id: `req-${kind}`,
      });
    }
    // Other database errors are no overload: a bug stays a 500.
    const unique = await app.inject({
      method: 'GET',
      url: '/api/failing/unique',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(unique.statusCode).toBe(500);
    expect(unique.headers['retry-after']).toBeUndefined();
  });

  it('answers a body that is not JSON with a 400 error body', async () => {
    const token = await testAuth.token();
    const res = await app.inject({
      method: 'POST',
      url: `/api/things/${id}`,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      payload: '{"name":',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      status: 400,
      message: 'リクエストが正しくありません。',
      request_id: expect.any(String),
    });
  });

  it('answers unknown routes with the error body', async () => {
    const res = await app.inject({ method: 'GET', url: '/api/nothing' });
    expect(res.json()).toEqual({
      status: 404,
      message: '指定されたデータが見つかりません。',
      request_id: expect.any(String),
    });
  });
});

describe('read-your-writes', () => {
  it('waits for the projections the endpoint reads, and answers 503 when they do not catch up', async () => {
    const token = await testAuth.token();
    waited.length = 0;
    reachable = true;
    const ok = await app.inject({
      method: 'GET',
      url: '/api/reading',
      headers: { authorization: `Bearer ${token}`, 'x-min-position': '7.9' },
    });
    expect(ok.statusCode).toBe(200);
    expect(waited).toEqual([{ projections: ['tags'], position: { primary: 7n, secondary: 9n } }]);
    reachable = false;
    const late = await app.inject({
      method: 'GET',
      url: '/api/reading',
      headers: { authorization: `Bearer ${token}`, 'x-min-position': '7.9' },
    });
    expect(late.statusCode).toBe(503);
    reachable = true;
    const bad = await app.inject({
      method: 'GET',
      url: '/api/reading',
      headers: { authorization: `Bearer ${token}`, 'x-min-position': 'yesterday' },
    });
    expect(bad.statusCode).toBe(422);
  });
});

describe('operations', () => {
  it('serves health, readiness, metrics, docs and security headers', async () => {
    expect((await app.inject({ url: '/healthz' })).json()).toEqual({ status: 'ok' });
    const metrics = await app.inject({ url: '/metrics' });
    expect(metrics.body).toContain('http_request_duration_seconds_bucket');
    expect(metrics.body).toContain('route="/api/things/:id"');
    const docs = await app.inject({ url: '/docs/json' });
    expect(docs.json().info.title).toBe('test');
    const ui = await app.inject({ url: '/docs/' });
    expect(ui.statusCode).toBe(200);
    expect(ui.headers['x-content-type-options']).toBe('nosniff');
    // Every answer, errors included, carries helmet's headers and its request id.
    const missing = await app.inject({ url: '/api/nowhere' });
    expect(missing.statusCode).toBe(404);
    expect(missing.headers).toMatchObject({
      'content-security-policy': expect.stringContaining("default-src 'self'"),
      'strict-transport-security': expect.stringContaining('max-age='),
      'x-content-type-options': 'nosniff',
      'x-frame-options': 'SAMEORIGIN',
      'cross-origin-opener-policy': 'same-origin',
      'referrer-policy': 'no-referrer',
      'x-request-id': expect.stringMatching(/^[0-9a-f-]{36}$/),
    });
    expect(app.servedEndpointIds().sort()).toEqual(['test.echo', 'test.failing', 'test.owner', 'test.reading']);
  });

  it('answers 503 from /readyz when a check fails', async () => {
    app.addReadinessCheck('db', async () => {
      throw new Error('down');
    });
    const res = await app.inject({ url: '/readyz' });
    expect(res.statusCode).toBe(503);
    expect(res.json().checks).toEqual({ db: 'failed' });
  });

  it('answers 503 with the error body when the process is under pressure', async () => {
    // Any heap at all is over a one-byte limit: the first sample puts the app under pressure.
    const pressed = await build({ underPressure: { maxHeapUsedBytes: 1, sampleInterval: 5 } });
    try {
      let res = await pressed.inject({ url: '/api/reading' });
      for (let i = 0; i < 200 && res.statusCode !== 503; i++) {
        await new Promise((resolve) => setTimeout(resolve, 10));
        res = await pressed.inject({ url: '/api/reading' });
      }
      expect(res.statusCode).toBe(503);
      expect(res.headers['retry-after']).toBe('5');
      expect(res.json()).toEqual({
        status: 503,
        message: expect.stringContaining('アクセスが集中'),
        request_id: expect.any(String),
      });
      expect((await pressed.inject({ url: '/healthz' })).statusCode).toBe(200);
      expect((await pressed.inject({ url: '/readyz' })).statusCode).toBe(503);
    } finally {
      await pressed.close();
    }
  });

  it('limits each signed-in account on its own, and unknown tokens by address', async () => {
    const limited = await build({ rateLimit: { max: 2, timeWindow: 60_000 } });
    try {
      const call = async (token?: string) =>
        (
          await limited.inject({
            method: 'GET',
            url: '/api/reading',
            headers: token ? { authorization: `Bearer ${token}` } : {},
          })
        ).statusCode;
      const alice = await testAuth.token();
      const bob = await testAuth.token();
      // A token's first call counts against the address (the token is not verified yet); from then on
      // the account has its own budget.
      expect([await call(alice), await call(alice), await call(alice), await call(alice)]).toEqual([
        200, 200, 200, 429,
      ]);
      expect([await call(bob), await call(bob), await call(bob)]).toEqual([200, 200, 200]);
      // A token that never verifies stays on the address's budget, which alice and bob used up.
      const forged = await testAuth.foreignToken();
      expect(await call(forged)).toBe(429);
    } finally {
      await limited.close();
    }
  });

  it('rate limits with the error body', async () => {
    const limited = await build({ rateLimit: { max: 2, timeWindow: 60_000 } });
    try {
      const token = await testAuth.token();
      const codes: number[] = [];
      for (let i = 0; i < 4; i++) {
        const res = await limited.inject({
          method: 'GET',
          url: '/api/reading',
          headers: { authorization: `Bearer ${token}` },
        });
        codes.push(res.statusCode);
        if (res.statusCode === 429)
          expect(res.json()).toEqual({
            status: 429,
            message: expect.stringContaining('リクエスト'),
            request_id: expect.any(String),
          });
      }
      expect(codes).toEqual([200, 200, 200, 429]);
      // Probes and metrics are never limited.
      expect((await limited.inject({ url: '/healthz' })).statusCode).toBe(200);
      expect((await limited.inject({ url: '/metrics' })).statusCode).toBe(200);
    } finally {
      await limited.close();
    }
  });
});
