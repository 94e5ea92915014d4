import { randomBytes } from 'node:crypto';
import type { SigningJwk } from './signing-keys.ts';
import type { IdentityDb } from '../db/identity.tables.ts';

export interface ProviderSecrets {
  /** Private signing keys (signing-keys.ts); the first one signs. */
  jwks: { keys: SigningJwk[] };
  cookieKeys: string[];
}

/**
 * Reads a secret, creating it on first use. Insert-then-read keeps it single-valued when several
 * identity instances start at once against one database.
 */
async function getOrCreate<T>(db: IdentityDb, name: string, create: () => T): Promise<T> {
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

/** The provider's cookie keys: persistent, so sessions and interactions survive a restart. */
export async function loadCookieKeys(db: IdentityDb): Promise<string[]> {
  return getOrCreate(db, 'oidc_cookie_keys', () => [randomBytes(32).toString('base64url')]);
}
