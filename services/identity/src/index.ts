import type { FastifyInstance } from 'fastify';
import { createLocalJWKSet } from 'jose';
import { sql } from 'kysely';
import type Provider from 'oidc-provider';
import { buildOpenApiDocument, forbidden, ipNotAllowedSubCode } from '@renkei/contracts';
import { createServiceApp, type ServiceAppOptions } from '@renkei/service-kit';
import { issuerOf } from './config.ts';
import type { IdentityDeps } from './deps.ts';
import { migrateIdentity } from './db/identity.migrations.ts';
import { createMailer } from './mail/mailer.ts';
import { createProvider } from './oidc/provider.ts';
import { deleteExpiredPayloads } from './oidc/postgres-adapter.ts';
import { registerOidcRoutes } from './oidc/oidc.routes.ts';
import { loadProviderSecrets, publicJwk } from './oidc/secrets.ts';
import { registerCurrentUserRoutes } from './current-user/current-user.routes.ts';
import { registerAccountRoutes } from './accounts/account.routes.ts';
import { findTenantById } from './tenants/tenant.queries.ts';
import { isIpAllowed } from './tenants/ip-allow-list.ts';

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
export { listMails, type StoredMail } from './mail/mailer.ts';
export { deriveFeatures, planFeatures } from './tenants/tenant.plans.ts';
export { identityMigrations, migrateIdentity } from './db/identity.migrations.ts';
export { oidcMountPath } from './oidc/provider.ts';

export interface IdentityApp {
  app: FastifyInstance;
  provider: Provider;
  issuer: string;
  close(): Promise<void>;
}

/**
 * The identity service: one Fastify app serving the OpenID provider and its pages under `/oidc/*`
 * and the main API (`/api/current_user`, profile, staffs) under `/api/*`.
 */
export async function buildIdentityApp(
  deps: IdentityDeps & { logger?: ServiceAppOptions['logger']; rateLimit?: false; underPressure?: false },
): Promise<IdentityApp> {
  const { db, config } = deps;
  await migrateIdentity(deps);
  const secrets = await loadProviderSecrets(db.kysely);
  const provider = createProvider(db.kysely, config, secrets);
  const mailer = await createMailer(config);
  const issuer = issuerOf(config);

  const app = await createServiceApp({
    name: 'identity',
    audience: 'main',
    auth: {
      issuer,
      audience: config.resources.main,
      jwks: createLocalJWKSet({ keys: secrets.jwks.keys.map(publicJwk) }),
    },
    openapi: buildOpenApiDocument({ service: 'identity', resources: config.resources }),
    ...(deps.logger !== undefined ? { logger: deps.logger } : {}),
    ...(deps.rateLimit === false ? { rateLimit: false } : {}),
    ...(deps.underPressure === false ? { underPressure: false } : {}),
    readinessChecks: { database: () => sql`select 1`.execute(db.kysely) },
  });

  // The tenant's IP allow-list guards the main API; the address is the gateway's X-Forwarded-For.
  app.addHook('preValidation', async (request) => {
    if (!request.auth) return;
    const tenant = await findTenantById(db.kysely, request.auth.tenantId);
    if (tenant && !isIpAllowed(request.ip, tenant.ip_allow_list)) {
      throw forbidden('許可されたIPアドレス以外からのアクセスのため、ページを表示できません。', ipNotAllowedSubCode);
    }
  });

  await registerOidcRoutes(app, { ...deps, provider, mailer });
  registerCurrentUserRoutes(app, deps);
  registerAccountRoutes(app, deps);

  const sweeper = setInterval(() => void deleteExpiredPayloads(db.kysely).catch(() => undefined), 10 * 60 * 1000);
  sweeper.unref();
  app.addHook('onClose', async () => {
    clearInterval(sweeper);
    await mailer.close();
  });

  return { app, provider, issuer, close: () => app.close() };
}
