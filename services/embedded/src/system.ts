import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { pino, type Logger } from 'pino';
import { openDatabase, type Database } from '@renkei/db';
import { createEventStore, type EventStore } from '@renkei/event-store';
import { buildCommandApp } from '@renkei/command';
import { buildGatewayApp, ensureLocalCertificate, followIpAllowLists } from '@renkei/gateway';
import { buildIdentityApp, loadIdentityConfig, type IdentityConfig } from '@renkei/identity';
import { buildQueryApp } from '@renkei/query';
import { projections as workerProjections, startWorker, wokenIdlePollMs, workerReactors } from '@renkei/worker';
import type { Projection } from '@renkei/projections';
import type { AuthOptions } from '@renkei/service-kit';
import type { EmbeddedConfig } from './config.ts';
import { holdableAppendWakeups } from './append-wakeups.ts';
import { hasDemoTenant, seedDemo, type DemoSeedResult } from './demo-seed.ts';
import { startAdminServer, type AdminServer } from './ops/admin-server.ts';
import { databaseOperations, type OpsContext } from './ops/operations.ts';

export interface EmbeddedSystem {
  /** The public URL of the web app. */
  readonly url: string;
  readonly config: EmbeddedConfig;
  readonly db: Database;
  readonly store: EventStore;
  readonly internalUrls: { identity: string; command: string; query: string };
  readonly adminPort: number;
  /** Set when this start seeded the demo tenant (first start only). */
  readonly demo: DemoSeedResult | undefined;
  /** Whether the demo tenant exists (its sign-in is worth printing). */
  readonly hasDemo: boolean;
  stop(): Promise<void>;
}

// The same list the standalone worker runs (every read model, from @renkei/read-models).
const projections: readonly Projection<any>[] = workerProjections;

function identityConfigFor(config: EmbeddedConfig): IdentityConfig {
  // In one process several installs (tests, a dev run) must not fight over the mail catcher's port.
  return loadIdentityConfig(process.env, {
    publicOrigin: config.publicOrigin,
    dataDir: config.dataDir,
    ...(process.env.SMTP_PORT ? {} : { smtpCatcherPort: 0 }),
  });
}

async function openStore(config: EmbeddedConfig): Promise<{ db: Database; store: EventStore }> {
  const db = await openDatabase({
    url: config.databaseUrl,
    dataDir: config.dataDir,
    applicationName: 'renkei-embedded',
  });
  try {
    const store = await createEventStore({ db, eventstoreUrl: config.eventstoreUrl });
    return { db, store };
  } catch (error) {
    await db.close();
    throw error;
  }
}

const listenInternal = async (app: FastifyInstance): Promise<string> => {
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address() as { port: number };
  return `http://127.0.0.1:${address.port}`;
};

/**
 * The embedded default: identity, command, query, the worker and the gateway in one process, each
 * service still its own Fastify instance on an internal port, all on one database handle (PGlite
 * has exactly one connection and one owning process).
 */
export async function startEmbedded(
  config: EmbeddedConfig,
  options: { logger?: Logger } = {},
): Promise<EmbeddedSystem> {
  const logger = options.logger ?? pino({ level: config.logLevel });
  const { db, store } = await openStore(config);
  const started: { name: string; stop: () => Promise<unknown> }[] = [];
  const stopAll = async () => {
    for (const s of started.reverse()) {
      try {
        await s.stop();
      } catch (error) {
        logger.error({ err: error }, `stopping ${s.name} failed`);
      }
    }
    started.length = 0;
    await store.close?.();
    await db.close();
  };

  try {
    const identityConfig = identityConfigFor(config);
    const identity = await buildIdentityApp({
      db,
      store,
      config: identityConfig,
      logger: logger.child({ service: 'identity' }),
    });
    started.push({ name: 'identity', stop: () => identity.close() });
    const identityUrl = await listenInternal(identity.app);

    // In-process: the services verify tokens against the provider's key set without an HTTP round trip
    // (it follows key rotation and re-reads the keys when a token names one it does not know).
    const jwks = identity.verificationKeys;
    const issuer = `${config.publicOrigin}/oidc`;
    const auth = (audience: string): AuthOptions => ({ issuer, audience, jwks });

    const command = await buildCommandApp({
      db,
      store,
      auth: auth(identityConfig.resources.command),
      logger: logger.child({ service: 'command' }),
      emailTrackingJournalDir: path.join(config.dataDir, 'email-tracking-hits'),
      publicOrigin: config.publicOrigin,
    });
    started.push({ name: 'command', stop: () => command.close() });
    const commandUrl = await listenInternal(command);

    const query = await buildQueryApp({
      db,
      store,
      auth: auth(identityConfig.resources.query),
      logger: logger.child({ service: 'query' }),
    });
    started.push({ name: 'query', stop: () => query.close() });
    const queryUrl = await listenInternal(query);

    // The demo seed's thousands of appends wake no loop of the worker one by one (append-wakeups.ts).
    const wakeups = holdableAppendWakeups(store);
    const worker = await startWorker({
      db,
      store: wakeups.store,
      projections,
      reactors: workerReactors({ publicOrigin: config.publicOrigin, dataDir: config.dataDir }),
      logger: logger.child({ service: 'worker' }),
      // Every write of this deployment is appended in this process and wakes the worker's loops at once;
      // their poll only finds appends made elsewhere (the ops CLI on the same database). Polled every
      // 25–50 ms, the caught-up loops made ~600 statements a second on an idle install, a third of a
      // core of this process and as much again of PostgreSQL's (docs/decisions.md).
      ...(store.onAppend ? { idlePollIntervalMs: wokenIdlePollMs } : {}),
    });
    started.push({ name: 'worker', stop: () => worker.stop() });

    let demo: DemoSeedResult | undefined;
    if (config.demoSeed) {
      wakeups.hold();
      try {
        demo = await seedDemo({
          db,
          store,
          dataDir: config.dataDir,
          logger,
          crm: { identityConfig, commandAuth: auth(identityConfig.resources.command) },
        });
      } finally {
        wakeups.release();
      }
    }

    const tls = ensureLocalCertificate(path.join(config.dataDir, 'tls'), { extraHosts: config.tlsExtraHosts });
    const ipAllowLists = followIpAllowLists({
      url: `${identityUrl}/internal/ip_allow_lists`,
      onError: (err) => logger.warn({ err }, 'gateway: IP allow-lists not refreshed'),
    });
    started.push({ name: 'ip allow-lists', stop: async () => ipAllowLists.close() });
    // Until the lists are known the gateway answers 503 to command and query: have them first.
    await ipAllowLists.loaded;
    const gateway = await buildGatewayApp({
      tls,
      upstreams: { identity: identityUrl, command: commandUrl, query: queryUrl },
      webDist: config.webDist,
      trustProxy: config.trustProxy,
      ipAllowLists,
      logger: logger.child({ service: 'gateway' }),
    });
    started.push({ name: 'gateway', stop: () => gateway.close() });
    await gateway.listen({ host: config.host, port: config.port });

    const ctx: OpsContext = {
      db,
      store,
      identityConfig,
      projections,
      insideServer: true,
      signingKeysChanged: () => identity.refreshSigningKeys(),
    };
    const admin: AdminServer = await startAdminServer({
      dataDir: config.dataDir,
      port: config.adminPort,
      handlers: Object.fromEntries(
        Object.entries(databaseOperations).map(([name, op]) => [
          name,
          (args: Record<string, unknown>) => op(ctx, args),
        ]),
      ),
    });
    started.push({ name: 'admin', stop: () => admin.close() });

    return {
      url: `${config.publicOrigin}/app/`,
      config,
      db,
      store,
      internalUrls: { identity: identityUrl, command: commandUrl, query: queryUrl },
      adminPort: admin.port,
      demo,
      hasDemo: await hasDemoTenant(db),
      stop: stopAll,
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}

/** The database of a stopped install, opened by the ops CLI itself. */
export async function openOpsContext(config: EmbeddedConfig): Promise<OpsContext & { close(): Promise<void> }> {
  const { db, store } = await openStore(config);
  return {
    db,
    store,
    identityConfig: identityConfigFor(config),
    projections,
    insideServer: false,
    async close() {
      await store.close?.();
      await db.close();
    },
  };
}
