import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { featureKeys, type Audience } from '@renkei/contracts';
import { createTestDatabase, type TestDatabase } from '@renkei/db';
import { createEventStore, type EventStore } from '@renkei/event-store';
import { buildCommandApp } from '@renkei/command';
import { buildGatewayApp, ensureLocalCertificate } from '@renkei/gateway';
import {
  addTenant,
  buildIdentityApp,
  issueAccessToken,
  loadIdentityConfig,
  updateTenant,
  type IdentityConfig,
} from '@renkei/identity';
import { generateInstitutionMaster, importInstitutionMaster } from '@renkei/institution-master';
import { buildQueryApp } from '@renkei/query';
import { projections, reactors, startWorker } from '@renkei/worker';
import type { AuthOptions } from '@renkei/service-kit';
import { HttpsClient } from './client.ts';

/** One tenant of the run, with an owner (and for tenant A a member). */
export interface SuiteTenant {
  readonly slug: string;
  readonly id: string;
  readonly ownerEmail: string;
}

export interface SuiteSystem {
  readonly db: TestDatabase;
  readonly store: EventStore;
  readonly identityConfig: IdentityConfig;
  readonly origin: string;
  readonly client: HttpsClient;
  /** Tenant A is the attacker's own tenant, B the victim whose rows must stay invisible and unchanged. */
  readonly tenants: { a: SuiteTenant; b: SuiteTenant; limited: SuiteTenant };
  /** A few institutions of the shared public master. */
  readonly institutionIds: readonly string[];
  token(tenant: SuiteTenant, audience: Audience, email?: string): Promise<string>;
  /** A token that looks right but is not (issuer, lifetime) — signed with the provider's real key. */
  forgedToken(tenant: SuiteTenant, audience: Audience, change: Partial<IdentityConfig>): Promise<string>;
  stop(): Promise<void>;
}

/**
 * A free port held open until released: the internal services listen on port 0 meanwhile, and the
 * system could otherwise hand them the gateway's port between choosing it and listening on it.
 */
async function reservePort(): Promise<{ port: number; release(): Promise<void> }> {
  const server = net.createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  return {
    port: (server.address() as net.AddressInfo).port,
    release: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const listenInternal = async (app: FastifyInstance): Promise<string> => {
  await app.listen({ host: '127.0.0.1', port: 0 });
  return `http://127.0.0.1:${(app.server.address() as net.AddressInfo).port}`;
};

/**
 * The five services composed exactly as `startEmbedded` does (same builders, same gateway over https,
 * one database), except that rate limiting and the event-loop pressure guard are off: the suite sends
 * thousands of requests from one address on a busy 2-core machine, and a 429/503 would hide the
 * answer it is testing.
 */
export async function startSuiteSystem(): Promise<SuiteSystem> {
  // RELIABILITY_POOL_MAX shrinks the one pool all services share, to run cases under contention.
  const poolMax = Number(process.env.RELIABILITY_POOL_MAX) || undefined;
  const db = await createTestDatabase(poolMax ? { poolMax } : {});
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'renkei-reliability-'));
  const logger = pino({ level: process.env.RELIABILITY_LOG_LEVEL ?? 'silent' });
  const reserved = await reservePort();
  const port = reserved.port;
  const origin = `https://localhost:${port}`;
  // The command service keeps uploads under RENKEI_DATA_DIR (it has no option for it): this run's own folder.
  process.env.RENKEI_DATA_DIR = dataDir;
  const store = await createEventStore({ db });
  const stops: (() => Promise<unknown>)[] = [];
  const stop = async () => {
    for (const s of stops.reverse()) await s().catch(() => undefined);
    await store.close?.();
    await db.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    const identityConfig = loadIdentityConfig({}, { publicOrigin: origin, dataDir, smtpCatcherPort: 0 });
    const identity = await buildIdentityApp({
      db,
      store,
      config: identityConfig,
      logger,
      rateLimit: false,
      underPressure: false,
    });
    stops.push(() => identity.close());
    const identityUrl = await listenInternal(identity.app);
    const auth = (audience: string): AuthOptions => ({
      issuer: `${origin}/oidc`,
      audience,
      jwks: identity.verificationKeys,
    });
    const command = await buildCommandApp({
      db,
      store,
      auth: auth(identityConfig.resources.command),
      logger,
      rateLimit: false,
      underPressure: false,
    });
    stops.push(() => command.close());
    const commandUrl = await listenInternal(command);
    const query = await buildQueryApp({
      db,
      auth: auth(identityConfig.resources.query),
      logger,
      rateLimit: false,
      underPressure: false,
    });
    stops.push(() => query.close());
    const queryUrl = await listenInternal(query);
    const worker = await startWorker({ db, store, projections, reactors, logger });
    stops.push(() => worker.stop());

    const tls = ensureLocalCertificate(path.join(dataDir, 'tls'));
    fs.mkdirSync(path.join(dataDir, 'web'), { recursive: true });
    fs.writeFileSync(path.join(dataDir, 'web', 'index.html'), '<!doctype html><title>renkei</title>');
    const gateway = await buildGatewayApp({
      tls,
      upstreams: { identity: identityUrl, command: commandUrl, query: queryUrl },
      // No web build in the suite: /app answers from the gateway's fallback, which still needs headers.
      webDist: path.join(dataDir, 'web'),
      logger,
    });
    stops.push(() => gateway.close());
    await reserved.release();
    await gateway.listen({ host: '127.0.0.1', port });

    const master = path.join(dataDir, 'master.csv');
    await generateInstitutionMaster(master, { count: 8, seed: 10 });
    await importInstitutionMaster(db, master);
    const institutionIds = (
      await db.pool.query<{ id: string }>('SELECT id FROM ref.medical_institutions ORDER BY code')
    ).rows.map((r) => String(r.id));

    const add = async (slug: string, name: string): Promise<SuiteTenant> => {
      const ownerEmail = `owner@${slug}.example`;
      const added = await addTenant(
        { db, store },
        { slug, name, ownerEmail, password: 'suite-pass-2026', plan: 'professional202112' },
      );
      return { slug, id: added.tenantId, ownerEmail };
    };
    const a = await add('suite-a', '攻撃側病院');
    const b = await add('suite-b', '被害側病院');
    const limited = await add('suite-limited', '機能なし病院');
    await updateTenant({ db, store }, limited.slug, { featuresOff: [...featureKeys] });
    // Phases are a tenant setting on top of the plan: on, so the phase endpoints are reachable.
    for (const t of [a, b]) await updateTenant({ db, store }, t.slug, { enabledPhase: true });

    const client = new HttpsClient({ host: '127.0.0.1', port, servername: 'localhost', ca: tls.caCert });
    return {
      db,
      store,
      identityConfig,
      origin,
      client,
      tenants: { a, b, limited },
      institutionIds,
      token: (tenant, audience, email) =>
        issueAccessToken(
          { db, config: identityConfig },
          { tenantSlug: tenant.slug, email: email ?? tenant.ownerEmail, audience },
        ),
      forgedToken: (tenant, audience, change) =>
        issueAccessToken(
          { db, config: { ...identityConfig, ...change } },
          { tenantSlug: tenant.slug, email: tenant.ownerEmail, audience },
        ),
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
