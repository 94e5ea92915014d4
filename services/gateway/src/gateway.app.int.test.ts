import fs from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
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
  { ...entry('things.paged', 'GET', '/things_paged', 'query'), query: z.object({ page: z.string().optional() }) },
  entry('things.create', 'POST', '/things', 'command'),
  entry('things.update', 'PUT', '/things/{id}', 'command'),
  entry('things.search', 'POST', '/things/search_results', 'query'),
  entry('uploads.create', 'POST', '/uploads', 'command'),
  entry('imports.createDataUpload', 'POST', '/data_uploads', 'command'),
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

const bigScript = 'export const 連携 = "地域医療連携室";\n'.repeat(500);

function request(
  port: number,
  ca: string,
  method: string,
  urlPath: string,
  options: { body?: string | Buffer; headers?: Record<string, string> } = {},
): Promise<{ status: number; headers: Record<string, any>; body: string; raw: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = https.request(
      { host: 'localhost', port, method, path: urlPath, ca, headers: options.headers },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const raw = Buffer.concat(chunks);
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: raw.toString('utf8'), raw });
        });
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

/** A request that sends its body only after 100 Continue, as curl does above 1 MiB. */
function requestWithContinue(
  port: number,
  ca: string,
  urlPath: string,
  headers: Record<string, string>,
  body: Buffer,
): Promise<{ status: number; body: string; continued: boolean }> {
  return new Promise((resolve, reject) => {
    let continued = false;
    const req = https.request(
      { host: 'localhost', port, method: 'POST', path: urlPath, ca, headers: { ...headers, expect: '100-continue' } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'), continued }),
        );
      },
    );
    req.on('continue', () => {
      continued = true;
      req.end(body);
    });
    req.on('error', reject);
    req.flushHeaders();
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
    // What web/src/build/precompress.vite.ts writes beside a large script and the page.
    fs.writeFileSync(path.join(webDist, 'assets', 'big-def456.js'), bigScript);
    fs.writeFileSync(path.join(webDist, 'assets', 'big-def456.js.br'), zlib.brotliCompressSync(bigScript));
    fs.writeFileSync(path.join(webDist, 'assets', 'big-def456.js.gz'), zlib.gzipSync(bigScript));
    fs.writeFileSync(path.join(webDist, 'index.html.br'), zlib.brotliCompressSync('<html>SPA</html>'));
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

  it('answers Expect: 100-continue with 100 Continue, then the service answers', async () => {
    const body = Buffer.from(JSON.stringify({ name: '連携' }));
    const res = await requestWithContinue(
      port,
      cert.caCert,
      '/api/things',
      {
        'content-type': 'application/json',
        'content-length': String(body.length),
      },
      body,
    );
    expect(res).toMatchObject({ status: 200, continued: true });
    expect((JSON.parse(res.body) as Echo).body).toBe(body.toString('utf8'));
  });

  it('answers 413 with the error body for a JSON body over 1 MiB, sent outright or after 100 Continue', async () => {
    const body = Buffer.from(JSON.stringify({ name: 'x'.repeat(2 * 1024 * 1024) }));
    const headers = { 'content-type': 'application/json', 'content-length': String(body.length) };
    const outright = await call('POST', '/api/things', { body, headers });
    expect(outright.status).toBe(413);
    expect(JSON.parse(outright.body)).toMatchObject({ status: 413, message: expect.any(String) });
    const waiting = await requestWithContinue(port, cert.caCert, '/api/things', headers, body);
    // Refused on the headers alone: the body is never sent.
    expect(waiting).toMatchObject({ status: 413, continued: false });
    expect(JSON.parse(waiting.body)).toMatchObject({ status: 413 });
  });

  it('answers 413 for an upload larger than the largest import, without waiting for its body', async () => {
    const res = await requestWithContinue(
      port,
      cert.caCert,
      '/api/uploads',
      {
        'content-type': 'multipart/form-data; boundary=x',
        'content-length': String(1024 * 1024 * 1024),
      },
      Buffer.alloc(0),
    );
    expect(res).toMatchObject({ status: 413, continued: false });
  });

  it('lets a DPC file through to /data_uploads up to 2 GiB and its framing, and no further', async () => {
    const declared = (length: number) =>
      new Promise<boolean>((resolve, reject) => {
        const req = https.request({
          host: 'localhost',
          port,
          method: 'POST',
          path: '/api/data_uploads',
          ca: cert.caCert,
          headers: {
            'content-type': 'multipart/form-data; boundary=x',
            'content-length': String(length),
            expect: '100-continue',
          },
        });
        // Told to go on: the gateway would stream the body through; nothing is sent here.
        req.on('continue', () => {
          resolve(true);
          req.destroy();
        });
        req.on('response', (res) => {
          res.resume();
          resolve(res.statusCode === 413 ? false : true);
        });
        req.on('error', (error) => (req.destroyed ? undefined : reject(error)));
        req.flushHeaders();
      });
    const gib = 1024 * 1024 * 1024;
    expect(await declared(gib)).toBe(true);
    expect(await declared(2 * gib + 1024 * 1024)).toBe(true);
    expect(await declared(2 * gib + 1024 * 1024 + 1)).toBe(false);
  });

  it("passes the service's 413 on when it refuses a chunked body half-way", async () => {
    const body = Buffer.from(JSON.stringify({ name: 'x'.repeat(2 * 1024 * 1024) }));
    const res = await call('POST', '/api/things', {
      body,
      headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
    });
    expect(res.status).toBe(413);
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

  it('proxies the public tracking paths of campaign mails (/t/…) to command, without sign-in', async () => {
    for (const [method, path] of [
      ['GET', '/t/o/abc.def'],
      ['GET', '/t/c/abc.def'],
      ['POST', '/t/u/abc.def'],
    ] as const) {
      const echo = JSON.parse((await call(method, path)).body) as Echo;
      expect(echo.service, path).toBe('command');
      expect(echo.url).toBe(path);
    }
  });

  it('proxies the signed links of uploaded files (/files/…) to query, without sign-in', async () => {
    const path = '/files/00000000-0000-4000-8000-000000000001?expires=1&signature=abc';
    const echo = JSON.parse((await call('GET', path)).body) as Echo;
    expect(echo.service).toBe('query');
    expect(echo.url).toBe(path);
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

  it("sends the build's precompressed files to a browser that accepts them, the plain file otherwise", async () => {
    const br = await call('GET', '/app/assets/big-def456.js', { headers: { 'accept-encoding': 'gzip, deflate, br' } });
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers['content-type']).toMatch(/javascript/);
    expect(br.headers.vary).toMatch(/accept-encoding/i);
    expect(br.headers['cache-control']).toContain('immutable');
    expect(zlib.brotliDecompressSync(br.raw).toString()).toBe(bigScript);
    expect(br.raw.length).toBeLessThan(bigScript.length / 10);
    const gz = await call('GET', '/app/assets/big-def456.js', { headers: { 'accept-encoding': 'gzip' } });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(zlib.gunzipSync(gz.raw).toString()).toBe(bigScript);
    const plain = await call('GET', '/app/assets/big-def456.js');
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body).toBe(bigScript);
    // A file without a compressed copy is sent plain, whatever the browser accepts.
    const small = await call('GET', '/app/assets/main-abc123.js', { headers: { 'accept-encoding': 'br' } });
    expect(small.headers['content-encoding']).toBeUndefined();
    expect(small.body).toBe('console.log(1)');
    // The SPA's page for a route of the app, compressed too.
    const page = await call('GET', '/app/medical_institutions_search', { headers: { 'accept-encoding': 'br' } });
    expect(page.headers['content-encoding']).toBe('br');
    expect(zlib.brotliDecompressSync(page.raw).toString()).toBe('<html>SPA</html>');
    expect(page.headers['cache-control']).toBe('no-cache');
  });

  it('sends CSP, HSTS, nosniff, frame protection and Referrer-Policy on pages, assets, its own answers and /oidc', async () => {
    const expectHardened = (res: { headers: Record<string, any> }, where: string, frames: 'none' | 'self') => {
      const csp = String(res.headers['content-security-policy'] ?? '');
      expect(csp, where).toContain("script-src 'self'");
      expect(csp, where).not.toMatch(/script-src[^;]*unsafe-inline/);
      expect(csp, where).toContain(`frame-ancestors '${frames}'`);
      expect(res.headers['x-frame-options'], where).toBe(frames === 'none' ? 'DENY' : 'SAMEORIGIN');
      expect(res.headers['strict-transport-security'], where).toMatch(/max-age=\d+/);
      expect(res.headers['x-content-type-options'], where).toBe('nosniff');
      expect(res.headers['referrer-policy'], where).toBe('no-referrer');
    };
    for (const p of ['/app/', '/app/medical_institutions/x', '/app/assets/main-abc123.js', '/', '/app', '/nothing']) {
      expectHardened(await call('GET', p), p, 'none');
    }
    const notFound = await call('GET', '/api/nothing_here');
    expectHardened(notFound, 'gateway 404', 'none');
    expect(JSON.parse(notFound.body).request_id).toBeTruthy();
    expectHardened(await call('GET', '/app/auth/redirect/'), 'bridge', 'self');
    for (const p of ['/oidc/jwks', '/oidc/.well-known/openid-configuration'])
      expectHardened(await call('GET', p), p, 'self');
  });

  it('passes a malformed percent-escape through as text instead of failing with a framework error', async () => {
    const res = await call('GET', '/api/things_paged?page=%ZZ');
    expect(res.status).toBe(200);
    expect((JSON.parse(res.body) as Echo).url).toBe('/api/things_paged?page=%25ZZ');
    // In a key the endpoint does not read the text would be ignored: the malformed URL is refused instead.
    for (const p of ['/api/things?page=%ZZ', '/api/current_user?keyword=%E3%81%', '/api/things_paged?page=1&k=%ZZ']) {
      const refused = await call('GET', p);
      expect(refused.status, p).toBe(400);
      expect(JSON.parse(refused.body), p).toMatchObject({ status: 400, request_id: expect.any(String) });
    }
    expect((await call('GET', '/api/things?page=2')).status).toBe(200);
    // A lone surrogate as the UTF-8 bytes of its code unit: refused as the service's string rule does
    // (the proxy cannot forward it), a 400 in a key the endpoint does not read.
    const surrogate = await call('GET', '/api/things_paged?page=ab%ED%A0%80');
    expect(surrogate.status, surrogate.body).toBe(422);
    expect(JSON.parse(surrogate.body)).toMatchObject({
      status: 422,
      errors: [{ field: 'page', message: '使用できない文字が含まれています。' }],
      request_id: expect.any(String),
    });
    expect((await call('GET', '/api/things?page=%ED%A0%80')).status).toBe(400);
    for (const p of ['/api/th%ZZ', '/app/%E0%A4%A']) {
      const res = await call('GET', p);
      expect(res.status, p).toBe(400);
      expect(JSON.parse(res.body), p).toMatchObject({ status: 400, message: 'リクエストが正しくありません。' });
      expect(res.headers['x-frame-options'], p).toBe('DENY');
    }
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
