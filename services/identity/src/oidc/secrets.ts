import { generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';

export interface SigningJwk {
  kty: 'RSA';
  kid: string;
  alg: 'RS256';
  use: 'sig';
  n: string;
  e: string;
  d?: string;
  p?: string;
  q?: string;
  dp?: string;
  dq?: string;
  qi?: string;
}

export interface ProviderSecrets {
  /** Private signing keys; the first one signs. */
  jwks: { keys: SigningJwk[] };
  cookieKeys: string[];
}

/**
 * Reads a secret, creating it on first use. Insert-then-read keeps it single-valued when several
 * identity instances start at once against one database.
 */
async function getOrCreate<T>(db: Kysely<any>, name: string, create: () => T): Promise<T> {
  await db
    .insertInto('identity.secrets')
    .values({ name, value: JSON.stringify(create()) })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
  const row = await db
    .selectFrom('identity.secrets')
    .select('value')
    .where('name', '=', name)
    .executeTakeFirstOrThrow();
  return row.value as T;
}

function generateSigningKey(): SigningJwk {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const jwk = privateKey.export({ format: 'jwk' }) as Omit<SigningJwk, 'kid' | 'alg' | 'use'>;
  return { ...jwk, kty: 'RSA', kid: randomUUID(), alg: 'RS256', use: 'sig' };
}

export async function loadProviderSecrets(db: Kysely<any>): Promise<ProviderSecrets> {
  const jwks = await getOrCreate(db, 'oidc_jwks', () => ({ keys: [generateSigningKey()] }));
  const cookieKeys = await getOrCreate(db, 'oidc_cookie_keys', () => [randomBytes(32).toString('base64url')]);
  return { jwks, cookieKeys };
}

export function publicJwk(jwk: SigningJwk): SigningJwk {
  return { kty: jwk.kty, kid: jwk.kid, alg: jwk.alg, use: jwk.use, n: jwk.n, e: jwk.e };
}
