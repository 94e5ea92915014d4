import fs from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type Database } from '@renkei/db';
import { createPostgresEventStore, type EventStore } from '@renkei/event-store';
import { buildGatewayApp, ensureLocalCertificate, followIpAllowLists, type IpAllowListSource } from '@renkei/gateway';
import {
  addTenant,
  buildIdentityApp,
  issueAccessToken,
  loadIdentityConfig,
  updateTenant,
  type IdentityApp,
} from '@renkei/identity';

/**
 * The IP allow-list through the gateway, with and without TRUST_PROXY: identity (real) checks its own
 * calls with the address the gateway forwards; the gateway checks the calls of command and query
 * (echo services here) against the lists it follows from identity.
 */
describe('the IP allow-list behind the gateway', { timeout: 120_000 }, () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'renkei-ip-allow-'));
  let db: Database;
  let store: EventStore;
  let identity: IdentityApp;
  let echo: FastifyInstance;
  let ca: string;
  const gateways: { app: FastifyInstance; port: number; lists: IpAllowListSource }[] = [];
  let direct: { port: number }; // the edge: X-Forwarded-For is not trusted
  let behindProxy: { port: number }; // TRUST_PROXY=true: behind an ingress that sets it
  let guarded = '';
  let open = '';

  const listen = async (app: FastifyInstance) => {
    await app.listen({ host: '127.0.0.1', port: 0 });
    return (app.server.address() as { port: number }).port;
  };

  beforeAll(async () => {
    db = await createTestDatabase();
    store = await createPostgresEventStore(db);
    const config = loadIdentityConfig({}, { dataDir: tmp, smtpCatcherPort: 0 });
    identity = await buildIdentityApp({ db, store, config, logger: false, rateLimit: false, underPressure: false });
    const identityUrl = `http://127.0.0.1:${await listen(identity.app)}`;
    echo = Fastify();
    echo.all('/*', async (request) => ({ reached: true, forwarded_for: request.headers['x-forwarded-for'] }));
    const echoUrl = `http://127.0.0.1:${await listen(echo)}`;

    await addTenant(
      { db, store },
      { slug: 'sakura', name: 'さくら', ownerEmail: 'o@sakura.example', password: 'owner-pass-1' },
    );
    await addTenant(
      { db, store },
      { slug: 'kaede', name: 'かえで', ownerEmail: 'o@kaede.example', password: 'owner-pass-1' },
    );
    await updateTenant({ db, store }, 'sakura', { ipAllowList: ['203.0.113.0/24', '2001:db8::/32'] });
    guarded = await issueAccessToken(
      { db, config },
      { tenantSlug: 'sakura', email: 'o@sakura.example', audience: 'main' },
    );
    open = await issueAccessToken({ db, config }, { tenantSlug: 'kaede', email: 'o@kaede.example', audience: 'main' });

    const cert = ensureLocalCertificate(path.join(tmp, 'tls'));
    ca = cert.caCert;
    const webDist = path.join(tmp, 'dist');
    fs.mkdirSync(webDist, { recursive: true });
    fs.writeFileSync(path.join(webDist, 'index.html'), '<html></html>');
    for (const trustProxy of [false, true]) {
      const lists = followIpAllowLists({ url: `${identityUrl}/internal/ip_allow_lists`, intervalMs: 200 });
      await lists.loaded;
      const app = await buildGatewayApp({
        tls: cert,
        upstreams: { identity: identityUrl, command: echoUrl, query: echoUrl },
        webDist,
        trustProxy,
        ipAllowLists: lists,
      });
      gateways.push({ app, port: await listen(app), lists });
    }
    direct = gateways[0]!;
    behindProxy = gateways[1]!;
  });

  afterAll(async () => {
    for (const g of gateways) {
      g.lists.close();
      await g.app.close();
    }
    await echo?.close();
    await identity?.close();
    await store?.close();
    await db?.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  const get = (port: number, urlPath: string, token: string, forwardedFor?: string) =>
    new Promise<{ status: number; body: any }>((resolve, reject) => {
      const headers: Record<string, string> = { authorization: `Bearer ${token}` };
      if (forwardedFor) headers['x-forwarded-for'] = forwardedFor;
      https
        .get({ host: 'localhost', port, path: urlPath, ca, headers }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () =>
            resolve({
              status: res.statusCode ?? 0,
              body: JSON.parse(Buffer.concat(chunks).toString('utf8') || 'null'),
            }),
          );
        })
        .on('error', reject);
    });

  const ipRefusal = {
    status: 403,
    sub_code: 'IP_NOT_ALLOWED',
    message: '許可されたIPアドレス以外からのアクセスのため、ページを表示できません。',
  };

  it('without TRUST_PROXY, a claimed X-Forwarded-For changes nothing: the socket address is checked', async () => {
    // identity's own call and a command call alike: 127.0.0.1 is outside sakura's list.
    for (const url of ['/api/current_user', '/api/vocs', '/api/tags']) {
      const spoofed = await get(direct.port, url, guarded, '203.0.113.9');
      expect(spoofed.status, url).toBe(403);
      expect(spoofed.body).toMatchObject(ipRefusal);
    }
    // A tenant without a list is not affected.
    expect((await get(direct.port, '/api/current_user', open, '198.51.100.1')).status).toBe(200);
    expect((await get(direct.port, '/api/tags', open)).body).toMatchObject({
      reached: true,
      forwarded_for: '127.0.0.1',
    });
  });

  it('with TRUST_PROXY, the address the proxy forwards is checked, for every service', async () => {
    const inside = await get(behindProxy.port, '/api/current_user', guarded, '203.0.113.9');
    expect(inside.status).toBe(200);
    expect(inside.body.tenant.name).toBe('さくら');
    expect((await get(behindProxy.port, '/api/tags', guarded, '203.0.113.9')).body).toMatchObject({
      reached: true,
      forwarded_for: '203.0.113.9',
    });
    expect((await get(behindProxy.port, '/api/tags', guarded, '2001:db8::7')).status).toBe(200);

    for (const url of ['/api/current_user', '/api/tags']) {
      const outside = await get(behindProxy.port, url, guarded, '198.51.100.1');
      expect(outside.status, url).toBe(403);
      expect(outside.body).toMatchObject(ipRefusal);
    }
  });

  it('follows a changed list: the gateway within its poll, identity at once', async () => {
    await updateTenant({ db, store }, 'sakura', { ipAllowList: ['198.51.100.0/24'] });
    expect((await get(behindProxy.port, '/api/current_user', guarded, '198.51.100.1')).status).toBe(200);
    // Polled every 200 ms here: wait for the gateway to have the new list, then check both ways.
    let status = 0;
    for (let i = 0; i < 100 && status !== 200; i++) {
      status = (await get(behindProxy.port, '/api/tags', guarded, '198.51.100.1')).status;
      if (status !== 200) await new Promise((r) => setTimeout(r, 100));
    }
    expect(status).toBe(200);
    expect((await get(behindProxy.port, '/api/tags', guarded, '203.0.113.9')).status).toBe(403);
  });

  it('refuses with 503, not an open door, while the lists are not known yet', async () => {
    const unknown = followIpAllowLists({ url: 'http://127.0.0.1:1/internal/ip_allow_lists', intervalMs: 60_000 });
    const app = await buildGatewayApp({
      tls: ensureLocalCertificate(path.join(tmp, 'tls')),
      upstreams: { identity: 'http://127.0.0.1:1', command: 'http://127.0.0.1:1', query: 'http://127.0.0.1:1' },
      webDist: path.join(tmp, 'dist'),
      ipAllowLists: unknown,
    });
    gateways.push({ app, port: await listen(app), lists: unknown });
    const refused = await get(gateways.at(-1)!.port, '/api/tags', open);
    expect(refused.status).toBe(503);
  });
});
