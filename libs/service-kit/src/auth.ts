import { jwtVerify, type JWTVerifyGetKey } from 'jose';
import { AccessTokenClaims, type FeatureKey, type Role } from '@renkei/contracts';

/** How a service verifies access tokens: one issuer, one audience (its resource), keys from JWKS. */
export interface AuthOptions {
  issuer: string;
  audience: string;
  jwks: JWTVerifyGetKey;
}

/** The caller, taken from the token only — never from the request. */
export interface AuthContext {
  tenantId: string;
  accountId: string;
  role: Role;
  features: readonly FeatureKey[];
}

/** Why a token was refused; callers answer 401 either way, the reason is only logged. */
export class TokenRejectedError extends Error {}

const verifiedTokens = new WeakMap<AuthOptions, Map<string, { auth: AuthContext; until: number }>>();
const CACHE_LIMIT = 10_000;
/** A key removed from the JWKS stops a cached token within this time at the latest. */
const CACHE_TTL_MS = 60_000;

/**
 * Verifies signature, issuer, audience and expiry, then the claims. A verified token is remembered
 * (until it expires, at most a minute) because clients send the same token on every call and an
 * ES256/RS256 verification costs more than the rest of a small request.
 */
export async function verifyAccessToken(token: string, options: AuthOptions): Promise<AuthContext> {
  let cache = verifiedTokens.get(options);
  if (!cache) verifiedTokens.set(options, (cache = new Map()));
  const cached = cache.get(token);
  if (cached && cached.until > Date.now()) return cached.auth;
  const auth = await verifyUncached(token, options);
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(token, { auth: auth.context, until: Math.min(auth.expiresAt, Date.now() + CACHE_TTL_MS) });
  return auth.context;
}

/**
 * The account of a token this service has already verified (and that has not expired), without
 * verifying again; null for any other token. Lets per-account limits ignore forged tokens.
 */
export function knownAccount(token: string, options: AuthOptions): string | null {
  const cached = verifiedTokens.get(options)?.get(token);
  return cached && cached.until > Date.now() ? `${cached.auth.tenantId}:${cached.auth.accountId}` : null;
}

async function verifyUncached(
  token: string,
  options: AuthOptions,
): Promise<{ context: AuthContext; expiresAt: number }> {
  let payload: unknown;
  try {
    ({ payload } = await jwtVerify(token, options.jwks, {
      issuer: options.issuer,
      audience: options.audience,
      requiredClaims: ['exp'],
    }));
  } catch (error) {
    throw new TokenRejectedError((error as Error).message);
  }
  const claims = AccessTokenClaims.safeParse(payload);
  if (!claims.success) throw new TokenRejectedError(`claims: ${claims.error.message}`);
  return {
    context: {
      tenantId: claims.data.tid,
      accountId: claims.data.sub,
      role: claims.data.role,
      features: claims.data.features,
    },
    expiresAt: claims.data.exp * 1000,
  };
}

export function bearerToken(header: string | undefined): string | null {
  if (!header) return null;
  const m = /^Bearer\s+(\S+)$/i.exec(header.trim());
  return m ? m[1]! : null;
}
