import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, migrateModule, type Database } from '@renkei/db';
import { generateSigningKey, keySetAt, loadSigningKeys } from '../oidc/signing-keys.ts';
import { identityMigrations, migrateIdentity } from './identity.migrations.ts';
import { identityDb } from './identity.tables.ts';

let db: Database;

beforeAll(async () => {
  db = await createTestDatabase();
});

afterAll(async () => {
  await db?.close();
});

describe('identity migrations', () => {
  it('an install from before key rotation keeps signing with its key, and its other keys stay published', async () => {
    await migrateModule(identityDb(db), 'identity', { '0001_identity': identityMigrations['0001_identity']! });
    const [signing, other] = [generateSigningKey(), generateSigningKey()];
    await identityDb(db)
      .insertInto('identity.secrets')
      .values({ name: 'oidc_jwks', value: JSON.stringify({ keys: [signing, other] }) })
      .execute();

    await migrateIdentity({ db });
    const keys = await loadSigningKeys(identityDb(db));
    expect(keys.map((k) => k.kid).sort()).toEqual([signing!.kid, other!.kid].sort());
    const set = keySetAt(keys, new Date(), 3900);
    expect(set.signing).toEqual(signing);
    expect(set.keys.map((k) => k.kid)).toEqual([signing!.kid, other!.kid]);
    const left = await identityDb(db).selectFrom('identity.secrets').select('name').execute();
    expect(left.map((r) => r.name)).not.toContain('oidc_jwks');
  });
});
