import { randomUUID } from 'node:crypto';
import { SignJWT, createLocalJWKSet, exportJWK, generateKeyPair } from 'jose';
import { defaultResources, featureKeys, type FeatureKey, type Role } from '@renkei/contracts';
import type { AuthOptions } from '../auth.ts';

export interface TestTokenClaims {
  tenantId?: string;
  accountId?: string;
  role?: Role;
  features?: readonly FeatureKey[];
  /** The vendor's support account (`cs` claim). */
  csAccount?: boolean;
  /** Defaults to the audience the test auth was made for. */
  audience?: string;
  issuer?: string;
  /** Seconds from now; negative for an expired token. Default 3600. */
  expiresIn?: number;
}

export interface TestAuth {
  auth: AuthOptions;
  /** The same keys and issuer for another audience (one key pair for a whole test). */
  authFor(audience: string): AuthOptions;
  token(claims?: TestTokenClaims): Promise<string>;
  /** A token signed with a key the services do not trust. */
  foreignToken(claims?: TestTokenClaims): Promise<string>;
}

type SigningKey = Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];

export const testIssuer = 'https://renkei.test/oidc';

/** Local key pair and JWKS for services' tests; tokens carry every feature unless told otherwise. */
export async function createTestAuth(options: { audience?: string } = {}): Promise<TestAuth> {
  const audience = options.audience ?? defaultResources.command;
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  const foreign = await generateKeyPair('ES256');
  const jwk = { ...(await exportJWK(publicKey)), kid: 'test-key', alg: 'ES256', use: 'sig' };
  const jwks = createLocalJWKSet({ keys: [jwk] });
  const authFor = (aud: string): AuthOptions => ({ issuer: testIssuer, audience: aud, jwks });
  const sign = async (key: SigningKey, claims: TestTokenClaims): Promise<string> =>
    new SignJWT({
      tid: claims.tenantId ?? randomUUID(),
      role: claims.role ?? 'owner',
      features: [...(claims.features ?? featureKeys)],
      tfp: 'B2C_1_signin',
      ...(claims.csAccount ? { cs: true } : {}),
    })
      .setProtectedHeader({ alg: 'ES256', kid: 'test-key' })
      .setSubject(claims.accountId ?? randomUUID())
      .setIssuer(claims.issuer ?? testIssuer)
      .setAudience(claims.audience ?? audience)
      .setIssuedAt()
      .setExpirationTime(Math.floor(Date.now() / 1000) + (claims.expiresIn ?? 3600))
      .sign(key);
  return {
    auth: authFor(audience),
    authFor,
    token: (claims = {}) => sign(privateKey, claims),
    foreignToken: (claims = {}) => sign(foreign.privateKey, claims),
  };
}
