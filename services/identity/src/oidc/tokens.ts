import { randomUUID } from 'node:crypto';
import { importJWK, SignJWT } from 'jose';
import { scopeFor, type Audience } from '@renkei/contracts';
import { sql } from 'kysely';
import type { Database } from '@renkei/db';
import { issuerOf, type IdentityConfig } from '../config.ts';
import { findTenantBySlug } from '../tenants/tenant.queries.ts';
import { accessTokenClaimsFor } from './provider.ts';
import { keySetAt, loadSigningKeys, maintainSigningKeys, publicJwk, retentionSeconds } from './signing-keys.ts';
import { identityDb } from '../db/identity.tables.ts';

/**
 * The provider's public signing keys as stored (published, pending and not yet swept). A running
 * identity app serves the same through `/oidc/jwks` and `IdentityApp.verificationKeys`.
 */
export async function getJwks(deps: { db: Database }): Promise<{ keys: ReturnType<typeof publicJwk>[] }> {
  const keys = await loadSigningKeys(identityDb(deps.db));
  return { keys: keys.map((k) => publicJwk(k.jwk)) };
}

/**
 * Mints an access token exactly like the provider would after a browser sign-in (same keys, issuer,
 * audience and claims), for the ops CLI, scripts and tests. Refused when an external provider issues
 * the tokens: the built-in keys then mean nothing to the services.
 */
export async function issueAccessToken(
  deps: { db: Database; config: IdentityConfig; clock?: () => Date },
  input: { tenantSlug: string; email: string; audience: Audience },
): Promise<string> {
  const { db, config } = deps;
  if (config.externalAuthority) {
    throw new Error(
      `Tokens are issued by the external provider ${config.externalAuthority}; the built-in provider does not mint them.`,
    );
  }
  const tenant = await findTenantBySlug(identityDb(db), input.tenantSlug);
  if (!tenant) throw new Error(`No tenant with slug "${input.tenantSlug}"`);
  const account = await identityDb(db)
    .selectFrom('identity.accounts')
    .select('id')
    .where('tenant_id', '=', tenant.id)
    .where((eb) =>
      eb.or([
        eb(sql`lower(email)`, '=', input.email.toLowerCase()),
        eb(sql`lower(login_name)`, '=', input.email.toLowerCase()),
      ]),
    )
    .executeTakeFirst();
  if (!account) throw new Error(`No account ${input.email} in tenant "${input.tenantSlug}"`);
  const claims = await accessTokenClaimsFor(identityDb(db), config, account.id);
  if (!claims) throw new Error(`Account ${input.email} is not active`);
  // The key the provider signs with now (creating the first one on an install that never started).
  const now = deps.clock?.() ?? new Date();
  const jwk = keySetAt(await maintainSigningKeys(identityDb(db), config, now), now, retentionSeconds(config)).signing;
  const key = await importJWK(jwk, 'RS256');
  const resource = config.resources[input.audience];
  return new SignJWT({ ...claims, scope: scopeFor(resource), client_id: config.spaClientId })
    .setProtectedHeader({ alg: 'RS256', kid: jwk.kid, typ: 'at+jwt' })
    .setIssuer(issuerOf(config))
    .setAudience(resource)
    .setSubject(account.id)
    .setIssuedAt()
    .setExpirationTime(`${config.accessTokenTtlSeconds}s`)
    .setJti(randomUUID())
    .sign(key);
}
