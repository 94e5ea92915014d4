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

export async function verifyAccessToken(token: string, options: AuthOptions): Promise<AuthContext> {
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
    tenantId: claims.data.tid,
    accountId: claims.data.sub,
    role: claims.data.role,
    features: claims.data.features,
  };
}

export function bearerToken(header: string | undefined): string | null {
  if (!header) return null;
  const m = /^Bearer\s+(\S+)$/i.exec(header.trim());
  return m ? m[1]! : null;
}
