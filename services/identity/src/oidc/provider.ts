import Provider, { errors, type Configuration, type KoaContextWithOIDC } from 'oidc-provider';
import { providerPagesCsp, scopeFor, type Audience } from '@renkei/contracts';
import { issuerOf, type IdentityConfig } from '../config.ts';
import { findAccountById } from '../accounts/account.queries.ts';
import { accountFeatures, findTenantById } from '../tenants/tenant.queries.ts';
import { errorPage, loggedOutPage, logoutPage, logoutPageCsp } from '../pages/provider.pages.ts';
import { PostgresAdapter } from './postgres-adapter.ts';
import type { ProviderSecrets } from './secrets.ts';
import { idTokenTtlSeconds } from './signing-keys.ts';
import type { IdentityDb } from '../db/identity.tables.ts';

/** Mount path of the provider on the public origin. */
export const oidcMountPath = '/oidc';

export interface TokenClaimsSource {
  tid: string;
  role: string;
  features: string[];
  tfp: string;
  /** Only on the vendor's support accounts, so the services can apply the matrix's cs rules. */
  cs?: true;
}

/** The claims every access token carries besides sub, iss, aud and exp (AccessTokenClaims in contracts). */
export async function accessTokenClaimsFor(
  db: IdentityDb,
  config: Pick<IdentityConfig, 'signInPolicy'>,
  accountId: string,
): Promise<TokenClaimsSource | undefined> {
  const account = await findAccountById(db, accountId);
  if (!account || !account.active) return undefined;
  const tenant = await findTenantById(db, account.tenant_id);
  if (!tenant) return undefined;
  const claims = {
    tid: tenant.id,
    role: account.role,
    features: accountFeatures(tenant, account),
    tfp: config.signInPolicy,
  };
  return account.cs_account ? { ...claims, cs: true } : claims;
}

function resourceScopes(config: IdentityConfig): Map<string, string> {
  return new Map(
    (Object.keys(config.resources) as Audience[]).map((a) => [config.resources[a], scopeFor(config.resources[a])]),
  );
}

/** The resources whose `<resource>/access_as_user` scope the request names, in the order of `resources`. */
function requestedResources(ctx: KoaContextWithOIDC, config: IdentityConfig): string[] {
  const requested = new Set(String(ctx.oidc.params?.scope ?? '').split(' '));
  return [...resourceScopes(config)].filter(([, scope]) => requested.has(scope)).map(([resource]) => resource);
}

/**
 * oidc-provider drops `offline_access` (so issues no refresh token) unless the request carries
 * prompt=consent, which MSAL never sends. For the first-party SPA the request is amended to ask for
 * consent, which the interaction then approves without a screen. `prompt=none` (silent renewal)
 * cannot carry consent and is left alone; `select_account` is not a prompt this provider knows.
 */
export function withSilentConsent(querystring: string, config: Pick<IdentityConfig, 'spaClientId'>): string {
  const params = new URLSearchParams(querystring);
  if (params.get('client_id') !== config.spaClientId) return querystring;
  if (!(params.get('scope') ?? '').split(' ').includes('offline_access')) return querystring;
  const prompts = new Set((params.get('prompt') ?? '').split(' ').filter(Boolean));
  if (prompts.has('none')) return querystring;
  prompts.delete('select_account');
  prompts.add('consent');
  params.set('prompt', [...prompts].join(' '));
  return params.toString();
}

export function createProvider(db: IdentityDb, config: IdentityConfig, secrets: ProviderSecrets): Provider {
  const appUrl = `${config.publicOrigin}/app/`;
  const scopes = resourceScopes(config);
  const isFirstParty = (clientId: string | undefined) => clientId === config.spaClientId;

  const configuration: Configuration = {
    adapter: (name: string) => new PostgresAdapter(name, db),
    jwks: secrets.jwks as Configuration['jwks'],
    cookies: {
      keys: secrets.cookieKeys,
      // Only the provider reads its session: the SPA and the APIs under the same origin never get it.
      long: { httpOnly: true, sameSite: 'lax', path: oidcMountPath },
    },
    clients: [
      {
        client_id: config.spaClientId,
        application_type: 'web',
        token_endpoint_auth_method: 'none',
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        redirect_uris: [`${config.publicOrigin}/app/auth/redirect`, appUrl],
        post_logout_redirect_uris: [appUrl, `${config.publicOrigin}/app`, `${config.publicOrigin}/`],
      },
    ],
    // The SPA is served from the same origin; CORS only for that origin.
    clientBasedCORS: (_ctx, origin) => origin === config.publicOrigin,
    pkce: { required: () => true },
    scopes: ['openid', 'profile', 'email', 'offline_access'],
    claims: {
      openid: ['sub', 'tfp', 'tid'],
      // MSAL asks for openid and profile only, and needs the email in the ID token.
      profile: ['name', 'email'],
      email: ['email', 'email_verified'],
    },
    conformIdTokenClaims: false,
    async findAccount(_ctx, sub) {
      const account = await findAccountById(db, sub);
      if (!account || !account.active) return undefined;
      return {
        accountId: account.id,
        async claims() {
          return {
            sub: account.id,
            name: account.username,
            email: account.email ?? undefined,
            email_verified: account.is_confirmed,
            tid: account.tenant_id,
            tfp: config.signInPolicy,
          };
        },
      };
    },
    async extraTokenClaims(_ctx, token) {
      if (token.kind !== 'AccessToken' || !token.accountId) return undefined;
      const claims = await accessTokenClaimsFor(db, config, token.accountId);
      return claims ? { ...claims } : undefined;
    },
    /**
     * The first-party SPA never sees a consent screen: its grant covers the OIDC scopes, offline_access
     * (MSAL never sends prompt=consent, without which the provider would drop it and issue no refresh
     * token) and all three APIs.
     */
    async loadExistingGrant(ctx) {
      const grantId = ctx.oidc.result?.consent?.grantId || ctx.oidc.session!.grantIdFor(ctx.oidc.client!.clientId);
      const existing = grantId ? await ctx.oidc.provider.Grant.find(grantId) : undefined;
      if (!isFirstParty(ctx.oidc.client?.clientId)) return existing;
      const grant =
        existing ??
        new ctx.oidc.provider.Grant({ clientId: ctx.oidc.client!.clientId, accountId: ctx.oidc.session!.accountId! });
      grant.addOIDCScope('openid profile email offline_access');
      grant.addOIDCClaims(['sub', 'name', 'email', 'email_verified', 'tfp', 'tid']);
      for (const [resource, scope] of scopes) grant.addResourceScope(resource, scope);
      await grant.save();
      return grant;
    },
    features: {
      devInteractions: { enabled: false },
      revocation: { enabled: true },
      rpInitiatedLogout: {
        enabled: true,
        async logoutSource(ctx, form) {
          ctx.type = 'html';
          ctx.set('content-security-policy', logoutPageCsp);
          ctx.body = logoutPage(form);
        },
        async postLogoutSuccessSource(ctx) {
          ctx.type = 'html';
          ctx.body = loggedOutPage({ appUrl });
        },
      },
      resourceIndicators: {
        enabled: true,
        async defaultResource(ctx, _client, oneOf) {
          const named = requestedResources(ctx, config);
          if (oneOf) {
            const choice = named.find((r) => oneOf.includes(r));
            return choice ?? oneOf[0]!;
          }
          if (named.length === 0) return undefined as unknown as string;
          return named.length === 1 ? named[0]! : named;
        },
        async useGrantedResource() {
          return true;
        },
        async getResourceServerInfo(_ctx, resourceIndicator) {
          const scope = scopes.get(resourceIndicator);
          if (!scope) throw new errors.InvalidTarget();
          return {
            scope,
            audience: resourceIndicator,
            accessTokenTTL: config.accessTokenTtlSeconds,
            accessTokenFormat: 'jwt',
            // The key ring puts the key that signs now first; naming it keeps pending keys unused.
            jwt: { sign: { alg: 'RS256', kid: secrets.jwks.keys[0]!.kid } },
          };
        },
      },
    },
    ttl: {
      AccessToken: config.accessTokenTtlSeconds,
      AuthorizationCode: 60,
      IdToken: idTokenTtlSeconds,
      Interaction: 3600,
      Session: 14 * 24 * 3600,
      Grant: 30 * 24 * 3600,
      RefreshToken: 14 * 24 * 3600,
    },
    // Refresh tokens outlive the browser session: MSAL renews silently with them.
    expiresWithSession: async () => false,
    /**
     * MSAL redeems one refresh token for several audiences at once (main, query and command at page
     * load). Rotating on every use would make the second concurrent redemption a "reused" token and
     * revoke the whole grant, so tokens rotate only in the last 30% of their life (docs/decisions.md).
     */
    rotateRefreshToken(ctx) {
      const refreshToken = ctx.oidc.entities.RefreshToken!;
      if (refreshToken.totalLifetime() >= 365 * 24 * 3600) return false;
      return refreshToken.ttlPercentagePassed() >= 70;
    },
    interactions: {
      url: async (_ctx, interaction) => `${oidcMountPath}/interaction/${interaction.uid}`,
    },
    async renderError(ctx, out, error) {
      ctx.type = 'html';
      const detail = out.error_description ?? (error instanceof Error ? error.message : undefined);
      ctx.body = errorPage({ appUrl, detail: typeof detail === 'string' ? detail : undefined });
    },
  };

  const provider = new Provider(issuerOf(config), configuration);
  // Behind the gateway: trust x-forwarded-proto/host for the https issuer and secure cookies.
  provider.proxy = true;
  provider.use(async (ctx, next) => {
    // A page with its own policy (the logout page) replaces it; inline scripts add their hashes to it.
    ctx.set('content-security-policy', providerPagesCsp);
    if (ctx.path === '/auth' && ctx.method === 'GET') {
      ctx.querystring = withSilentConsent(ctx.querystring, config);
      // URLs the provider builds take the mount path from originalUrl minus url; keep them aligned.
      (ctx.req as { originalUrl?: string }).originalUrl = `${oidcMountPath}${ctx.url}`;
    }
    await next();
  });
  return provider;
}
