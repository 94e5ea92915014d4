import type { FastifyInstance } from 'fastify';
import type { JWTVerifyGetKey } from 'jose';
import { sql } from 'kysely';
import type Provider from 'oidc-provider';
import { buildOpenApiDocument, forbidden, ipNotAllowedMessage, ipNotAllowedSubCode } from '@renkei/contracts';
import { createServiceApp, type ServiceAppOptions } from '@renkei/service-kit';
import { issuerOf } from './config.ts';
import type { IdentityDeps } from './deps.ts';
import { migrateIdentity } from './db/identity.migrations.ts';
import { createMailer } from './mail/mailer.ts';
import { createProvider } from './oidc/provider.ts';
import { deleteExpiredPayloads } from './oidc/postgres-adapter.ts';
import { registerOidcRoutes } from './oidc/oidc.routes.ts';
import { loadCookieKeys } from './oidc/secrets.ts';
import { SigningKeyRing } from './oidc/signing-keys.ts';
import { deleteStaleSignInFailures } from './oidc/sign-in-lockout.ts';
import { deletePublishedOutboxRows, outboxRelay } from './outbox/outbox.ts';
import { registerCurrentUserRoutes } from './current-user/current-user.routes.ts';
import { registerAccountRoutes } from './accounts/account.routes.ts';
import { registerTenantSettingRoutes } from './tenants/tenant-setting.routes.ts';
import { findTenantById } from './tenants/tenant.queries.ts';
import { isIpAllowed } from '@renkei/contracts/ip-allow-list';
import { identityDb } from './db/identity.tables.ts';

export { loadIdentityConfig, issuerOf, type IdentityConfig } from './config.ts';
export type { IdentityDeps, AdminDeps } from './deps.ts';
export {
  addTenant,
  updateTenant,
  type NewTenant,
  type AddedTenant,
  type TenantChanges,
} from './tenants/tenant.commands.ts';
export { addAccount, setPassword, type NewAccount } from './accounts/account.commands.ts';
export { issueAccessToken, getJwks } from './oidc/tokens.ts';
export { listMails, type StoredMail } from '@renkei/mail';
export { deriveFeatures, planFeatures } from './tenants/tenant.plans.ts';
export { identityMigrations, migrateIdentity } from './db/identity.migrations.ts';
export { identityDb } from './db/identity.tables.ts';
export { oidcMountPath } from './oidc/provider.ts';

export {
  rotateSigningKey,
  defaultSigningKeyPolicy,
  type SigningKeyPolicy,
  type SigningJwk,
} from './oidc/signing-keys.ts';
export { defaultLockoutPolicy, type LockoutPolicy } from './oidc/sign-in-lockout.ts';

export interface IdentityApp {
  app: FastifyInstance;
  /** The OpenID provider now (rebuilt when the signing keys change). */
  readonly provider: Provider;
  issuer: string;
  /** The published signing keys, for services in the same process (re-read on an unknown `kid`). */
  verificationKeys: JWTVerifyGetKey;
  /** Applies key changes now (rotation schedule, `pnpm ops keys rotate`) instead of at the next poll. */
  refreshSigningKeys(): Promise<void>;
  close(): Promise<void>;
}

/**
 * The identity service: one Fastify app serving the OpenID provider and its pages under `/oidc/*`
 * and the main API (`/api/current_user`, profile, staffs) under `/api/*`.
 */
export async function buildIdentityApp(
  deps: IdentityDeps & {
    logger?: ServiceAppOptions['logger'];
    rateLimit?: false;
    underPressure?: false;
    /** Tests move time for key rotation; everything else uses the real clock. */
    clock?: () => Date;
  },
): Promise<IdentityApp> {
  const { db, config } = deps;
  await migrateIdentity(deps);
  const cookieKeys = await loadCookieKeys(identityDb(db));
  // Interactions, sessions and grants live in the database and cookies keep their keys, so a
  // rebuilt provider carries on exactly like one after a restart.
  let provider: Provider | undefined;
  const keys = await SigningKeyRing.open({
    db: identityDb(db),
    config,
    ...(deps.clock ? { clock: deps.clock } : {}),
    onChange: (set) => {
      provider = createProvider(identityDb(db), config, { jwks: { keys: set.keys }, cookieKeys });
    },
  });
  provider = createProvider(identityDb(db), config, { jwks: { keys: keys.current.keys }, cookieKeys });
  const currentProvider = () => provider!;
  const mailer = await createMailer(config);
  const issuer = issuerOf(config);

  const app = await createServiceApp({
    name: 'identity',
    audience: 'main',
    auth: {
      issuer,
      audience: config.resources.main,
      jwks: keys.verificationKeys,
    },
    accountEvents: deps.store,
    openapi: buildOpenApiDocument({ service: 'identity', resources: config.resources }),
    ...(deps.logger !== undefined ? { logger: deps.logger } : {}),
    ...(deps.rateLimit === false ? { rateLimit: false } : {}),
    ...(deps.underPressure === false ? { underPressure: false } : {}),
    readinessChecks: { database: () => sql`select 1`.execute(identityDb(db)) },
  });

  // The tenant's IP allow-list guards the main API; the address is the gateway's X-Forwarded-For.
  app.addHook('preValidation', async (request) => {
    if (!request.auth) return;
    const tenant = await findTenantById(identityDb(db), request.auth.tenantId);
    if (tenant && !isIpAllowed(request.ip, tenant.ip_allow_list)) {
      throw forbidden(ipNotAllowedMessage, ipNotAllowedSubCode);
    }
  });

  await registerOidcRoutes(app, { ...deps, provider: currentProvider, mailer });
  registerCurrentUserRoutes(app, deps);
  registerAccountRoutes(app, { ...deps, mailer });
  registerTenantSettingRoutes(app, deps);

  // Internal (outside /api, which is all the gateway publishes): the gateway follows the lists from
  // here to check the calls of command and query, which have no access to them.
  app.get('/internal/ip_allow_lists', async () => {
    const rows = await identityDb(db)
      .selectFrom('identity.tenants')
      .select(['id', 'ip_allow_list'])
      .where(sql<boolean>`jsonb_array_length(ip_allow_list) > 0`)
      .execute();
    return { tenants: Object.fromEntries(rows.map((r) => [r.id, r.ip_allow_list])) };
  });

  // Events a crash left in the outbox go out now; later ones right after their commit, or at the poll.
  const relay = outboxRelay(deps);
  relay.start({ onError: (err) => app.log.warn({ err }, 'identity outbox: append failed, will retry') });
  keys.start(30_000, (err) => app.log.error({ err }, 'signing keys: refresh failed'));

  const sweep = () =>
    Promise.all([
      deleteExpiredPayloads(identityDb(db)),
      deletePublishedOutboxRows(identityDb(db)),
      deleteStaleSignInFailures(identityDb(db), config.signInLockout),
    ]);
  const sweeper = setInterval(() => void sweep().catch(() => undefined), 10 * 60 * 1000);
  sweeper.unref();
  app.addHook('onClose', async () => {
    clearInterval(sweeper);
    keys.stop();
    await relay.stop();
    await mailer.close();
  });

  return {
    app,
    get provider() {
      return currentProvider();
    },
    issuer,
    verificationKeys: keys.verificationKeys,
    refreshSigningKeys: () => keys.refresh(),
    close: () => app.close(),
  };
}
