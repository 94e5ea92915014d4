import fs from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { endpoint, type EndpointContract, type OwningService } from '@renkei/contracts';
import { buildGatewayApp } from './gateway.app.ts';
import { ensureLocalCertificate, type LocalCertificate } from './tls.ts';

const entry = (id: string, method: EndpointContract['method'], p: string, service: OwningService) =>
  endpoint({
    id,
    area: 'test',
    method,
    path: p,
    service,
    summary: id,
    response: z.unknown(),
    successStatus: 200,
    feature: null,
    served: true,
  });

const registry = [
  entry('things.list', 'GET', '/things', 'query'),
  entry('things.create', 'POST', '/things', 'command'),
  entry('things.update', 'PUT', '/things/{id}', 'command'),
  entry('things.search', 'POST', '/things/search_results', 'query'),
  entry('uploads.create', 'POST', '/uploads', 'command'),
  entry('current_user', 'GET', '/current_user', 'identity'),
];

interface Echo {
  service: string;
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

async function fakeUpstream(service: string): Promise<{ app: FastifyInstance; url: string }> {
  const app = Fastify();
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
  app.all('/*', async (request, reply) => {
    if (request.url.startsWith('/oidc/redirect-me')) return reply.redirect('/oidc/elsewhere');
    const echo: Echo = {
      service,
      method: request.method,
      url: request.url,
      headers: request.headers,
      body: request.body ? (request.body as Buffer).toString('utf8') : '',
    };
    return reply.header('x-position', '7.3').send(echo);
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address() as { port: number };
  return { app, url: `http://127.0.0.1:${address.port}` };
}

function request(
  port: number,
  ca: string,
  method: string,
  urlPath: string,
  options: { body?: string | Buffer; headers?: Record<string, string> } = {},
): Promise<{ status: number; headers: Record<string, any>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = https.request(
      { host: 'localhost', port, method, path: urlPath, ca, headers: options.headers },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }),
        );
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

describe('gateway over https', () => {
  let tmp: string;
  let cert: LocalCertificate;
  let upstreams: Record<OwningService, { app: FastifyInstance; url: string }>;
  let gateway: FastifyInstance;
  let port: number;
  const call = (method: string, p: string, o?: Parameters<typeof request>[4]) =>
    request(port, cert.caCert, method, p, o);

  beforeAll(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'renkei-gateway-'));
    const webDist = path.join(tmp, 'dist');
    fs.mkdirSync(path.join(webDist, 'assets'), { recursive: true });
    fs.mkdirSync(path.join(webDist, 'auth', 'redirect'), { recursive: true });
    fs.writeFileSync(path.join(webDist, 'index.html'), '<html>SPA</html>');
    fs.writeFileSync(path.join(webDist, 'assets', 'main-abc123.js'), 'console.log(1)');
    fs.writeFileSync(path.join(webDist, 'auth', 'redirect', 'index.html'), '<html>BRIDGE</html>');
    cert = ensureLocalCertificate(path.join(tmp, 'tls'));
    upstreams = {
      identity: await fakeUpstream('identity'),
      command: await fakeUpstream('command'),
      query: await fakeUpstream('query'),
    };
    gateway = await buildGatewayApp({
      tls: cert,
      upstreams: { identity: upstreams.identity.url, command: upstreams.command.url, query: upstreams.query.url },
      webDist,
      registry,
    });
    await gateway.listen({ host: '127.0.0.1', port: 0 });
    port = (gateway.server.address() as { port: number }).port;
  });

  afterAll(async () => {
    await gateway?.close();
    for (const u of Object.values(upstreams ?? {})) await u.app.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('routes /api by method and path to the owning service, query string and body intact', async () => {
    const list = await call('GET', '/api/things?page=2&tags%5B%5D=%E6%97%A5');
    expect(list.status).toBe(200);
    const listEcho = JSON.parse(list.body) as Echo;
    expect(listEcho.service).toBe('query');
    expect(listEcho.url).toBe('/api/things?page=2&tags%5B%5D=%E6%97%A5');

    const body = JSON.stringify({ name: '訪問予定' });
    const created = await call('POST', '/api/things', {
      body,
      headers: { 'content-type': 'application/json', authorization: 'Bearer t' },
    });
    const createdEcho = JSON.parse(created.body) as Echo;
    expect(createdEcho.service).toBe('command');
    expect(createdEcho.body).toBe(body);
    expect(createdEcho.headers.authorization).toBe('Bearer t');
    expect(created.headers['x-position']).toBe('7.3');

    const search = JSON.parse(
      (
        await call('POST', '/api/things/search_results', {
          body: '{}',
          headers: { 'content-type': 'application/json' },
        })
      ).body,
    ) as Echo;
    expect(search.service).toBe('query');
    const update = JSON.parse(
      (await call('PUT', '/api/things/42', { body: '{}', headers: { 'content-type': 'application/json' } })).body,
    ) as Echo;
    expect(update.service).toBe('command');
    const me = JSON.parse((await call('GET', '/api/current_user')).body) as Echo;
    expect(me.service).toBe('identity');
  });

  it('passes a multipart upload through byte for byte', async () => {
    const boundary = 'XyZ';
    const payload = Buffer.concat([
      Buffer.from(
        `--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="a.csv"\r\ncontent-type: text/csv\r\n\r\n`,
      ),
      Buffer.from([0x88, 0xe3, 0x97, 0x61, 0x09, 0x0d, 0x0a]),
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    const res = await call('POST', '/api/uploads', {
      body: payload,
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
    });
    const echo = JSON.parse(res.body) as Echo;
    expect(echo.service).toBe('command');
    expect(echo.headers['content-type']).toBe(`multipart/form-data; boundary=${boundary}`);
    expect(Number(echo.headers['content-length'])).toBe(payload.length);
  });

  it('answers an unknown method or path under /api with a 404 error body', async () => {
    for (const [method, p] of [
      ['DELETE', '/api/things'],
      ['GET', '/api/nothing_here'],
    ] as const) {
      const res = await call(method, p);
      expect(res.status).toBe(404);
      const body = JSON.parse(res.body) as { status: number; message: string };
      expect(body.status).toBe(404);
      expect(body.message).toMatch(/見つかりません/);
    }
  });

  it('forwards the client IP, Host and protocol, and ignores a spoofed X-Forwarded-For', async () => {
    const res = await call('GET', '/api/current_user', { headers: { 'x-forwarded-for': '203.0.113.9' } });
    const echo = JSON.parse(res.body) as Echo;
    expect(echo.headers['x-forwarded-for']).toBe('127.0.0.1');
    expect(echo.headers['x-forwarded-proto']).toBe('https');
    expect(echo.headers.host).toBe(`localhost:${port}`);
    expect(echo.headers['x-forwarded-host']).toBe(`localhost:${port}`);
    expect(echo.headers['x-request-id']).toBeTruthy();
  });

  it('proxies /oidc to identity preserving Host, and leaves its redirects alone', async () => {
    const res = await call('POST', '/oidc/interaction/abc/login', {
      body: 'login=a%40b.jp&password=x',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: '_interaction=1' },
    });
    const echo = JSON.parse(res.body) as Echo;
    expect(echo.service).toBe('identity');
    expect(echo.url).toBe('/oidc/interaction/abc/login');
    expect(echo.body).toBe('login=a%40b.jp&password=x');
    expect(echo.headers.host).toBe(`localhost:${port}`);
    expect(echo.headers.cookie).toBe('_interaction=1');
    expect(echo.headers['x-forwarded-proto']).toBe('https');
    const discovery = JSON.parse((await call('GET', '/oidc/.well-known/openid-configuration')).body) as Echo;
    expect(discovery.url).toBe('/oidc/.well-known/openid-configuration');
    const redirected = await call('GET', '/oidc/redirect-me');
    expect(redirected.status).toBe(302);
    expect(redirected.headers.location).toBe('/oidc/elsewhere');
  });

  it('serves the web build at /app with an SPA fallback, the bridge page on its own, and redirects /', async () => {
    expect((await call('GET', '/app/')).body).toBe('<html>SPA</html>');
    expect((await call('GET', '/app/medical_institutions_search?x=1')).body).toBe('<html>SPA</html>');
    expect((await call('GET', '/app/tags/123')).body).toBe('<html>SPA</html>');
    expect((await call('GET', '/app/auth/redirect')).body).toBe('<html>BRIDGE</html>');
    expect((await call('GET', '/app/auth/redirect?code=1#x')).body).toBe('<html>BRIDGE</html>');
    const asset = await call('GET', '/app/assets/main-abc123.js');
    expect(asset.body).toBe('console.log(1)');
    expect(asset.headers['cache-control']).toContain('immutable');
    expect((await call('GET', '/app/assets/missing.js')).status).toBe(404);
    expect((await call('GET', '/app/..%2F..%2Ftls%2Fca.key')).status).toBe(404);
    expect((await call('GET', '/app/%E0%A4%A')).status).toBe(400);
    const root = await call('GET', '/');
    expect(root.status).toBe(302);
    expect(root.headers.location).toBe('/app/');
    expect((await call('GET', '/app')).headers.location).toBe('/app/');
  });

  it('answers 502 with an error body when a service is down', async () => {
    const down = await buildGatewayApp({
      tls: cert,
      upstreams: { identity: 'http://127.0.0.1:1', command: 'http://127.0.0.1:1', query: 'http://127.0.0.1:1' },
      webDist: tmp,
      registry,
    });
    const res = await down.inject({ method: 'GET', url: '/api/things' });
    await down.close();
    expect(res.statusCode).toBeGreaterThanOrEqual(502);
    expect(res.json()).toMatchObject({ status: res.statusCode });
  });
});
