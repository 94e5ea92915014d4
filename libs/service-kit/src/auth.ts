import { KeyObject, webcrypto } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fastifyJwt from '@fastify/jwt';
import type { CompactJWSHeaderParameters, JWTVerifyGetKey } from 'jose';
import { AccessTokenClaims, type FeatureKey, type Role } from '@renkei/contracts';
import type { AccountRevocations } from './revocations.ts';

/** How a service verifies access tokens: one issuer, one audience (its resource), keys from JWKS. */
export interface AuthOptions {
  issuer: string;
  audience: string;
  /**
   * The key resolver of the JWKS (jose's `createRemoteJWKSet`, or the identity service's key ring in
   * process): it caches the set and re-reads it when a token names a key it does not know, which is
   * how signing-key rotation reaches the services.
   */
  jwks: JWTVerifyGetKey;
}

/** The caller, taken from the token only — never from the request. */
export interface AuthContext {
  tenantId: string;
  accountId: string;
  role: Role;
  features: readonly FeatureKey[];
  /** The vendor's support account (the token's `cs` claim). */
  csAccount: boolean;
}

/** Why a token was refused; callers answer 401 either way, the reason is only logged. */
export class TokenRejectedError extends Error {}

/**
 * Asymmetric algorithms only: a token is never checked with a shared secret (so a public key can never
 * be used as an HMAC secret), and `none` is refused before any key is looked up.
 */
const acceptedAlgorithms = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'];

const verifiedTokens = new WeakMap<AuthOptions, Map<string, { auth: AuthContext; until: number }>>();
const CACHE_LIMIT = 10_000;
/** A key removed from the JWKS stops a cached token within this time at the latest. */
const CACHE_TTL_MS = 60_000;

const pemOfKey = new WeakMap<object, string>();

/** fast-jwt (under @fastify/jwt) takes PEM; jose's resolvers hand out CryptoKeys or KeyObjects. */
function publicKeyPem(key: unknown): string {
  if (key instanceof Uint8Array) throw new TokenRejectedError('symmetric key in JWKS');
  const cached = pemOfKey.get(key as object);
  if (cached) return cached;
  const keyObject = key instanceof KeyObject ? key : KeyObject.from(key as webcrypto.CryptoKey);
  if (keyObject.type !== 'public') throw new TokenRejectedError('JWKS key is not a public key');
  const pem = keyObject.export({ type: 'spki', format: 'pem' }).toString();
  pemOfKey.set(key as object, pem);
  return pem;
}

/**
 * Registers @fastify/jwt on the app for the service's one issuer and audience, with the key of each
 * token resolved through the JWKS resolver of `options` (its caching and rotation are kept as they are).
 */
export async function installTokenVerification(app: FastifyInstance, options: AuthOptions): Promise<void> {
  await app.register(fastifyJwt, {
    secret: async (request: FastifyRequest, token: unknown) => {
      const { header } = token as { header: CompactJWSHeaderParameters };
      if (!acceptedAlgorithms.includes(String(header.alg))) throw new TokenRejectedError(`alg ${header.alg}`);
      const [, payload = '', signature = ''] = (bearerToken(request.headers.authorization) ?? '').split('.');
      return publicKeyPem(await options.jwks(header, { payload, signature }));
    },
    decode: { complete: true },
    verify: {
      extractToken: (request: FastifyRequest) => bearerToken(request.headers.authorization) ?? undefined,
      algorithms: acceptedAlgorithms as never,
      allowedIss: options.issuer,
      allowedAud: options.audience,
      requiredClaims: ['exp'],
    },
  });
}

/**
 * Verifies signature, issuer, audience and expiry (through @fastify/jwt, see
 * `installTokenVerification`), then the claims, then that the account has not been deleted or
 * deactivated since the token was issued (`revocations`, checked on every call, cached token or not).
 * A verified token is remembered (until it expires, at most a minute) because clients send the same
 * token on every call and an ES256/RS256 verification costs more than the rest of a small request.
 */
export async function verifyAccessToken(
  request: FastifyRequest,
  token: string,
  options: AuthOptions,
  revocations: Pick<AccountRevocations, 'isRevoked'>,
): Promise<AuthContext> {
  let cache = verifiedTokens.get(options);
  if (!cache) verifiedTokens.set(options, (cache = new Map()));
  const cached = cache.get(token);
  let auth: AuthContext;
  if (cached && cached.until > Date.now()) {
    auth = cached.auth;
  } else {
    const verified = await verifyUncached(request);
    if (cache.size >= CACHE_LIMIT) cache.clear();
    cache.set(token, { auth: verified.context, until: Math.min(verified.expiresAt, Date.now() + CACHE_TTL_MS) });
    auth = verified.context;
  }
  if (revocations.isRevoked(auth.accountId)) throw new TokenRejectedError('account deleted or deactivated');
  return auth;
}

/**
 * The account of a token this service has already verified (and that has not expired), without
 * verifying again; null for any other token. Lets per-account limits ignore forged tokens.
 */
export function knownAccount(token: string, options: AuthOptions): string | null {
  const cached = verifiedTokens.get(options)?.get(token);
  return cached && cached.until > Date.now() ? `${cached.auth.tenantId}:${cached.auth.accountId}` : null;
}

async function verifyUncached(request: FastifyRequest): Promise<{ context: AuthContext; expiresAt: number }> {
  let payload: unknown;
  try {
    payload = await request.jwtVerify();
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
      csAccount: claims.data.cs === true,
    },
    expiresAt: claims.data.exp * 1000,
  };
}

export function bearerToken(header: string | undefined): string | null {
  if (!header) return null;
  const m = /^Bearer\s+(\S+)$/i.exec(header.trim());
  return m ? m[1]! : null;
}
