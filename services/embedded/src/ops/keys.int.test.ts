import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type Database } from '@renkei/db';
import { createPostgresEventStore, type EventStore } from '@renkei/event-store';
import { getJwks, loadIdentityConfig, migrateIdentity } from '@renkei/identity';
import { databaseOperations, type OpsContext } from './operations.ts';

let db: Database;
let store: EventStore;

beforeAll(async () => {
  db = await createTestDatabase();
  store = await createPostgresEventStore(db);
});

afterAll(async () => {
  await store?.close();
  await db?.close();
});

describe('pnpm ops keys rotate', () => {
  it('publishes a new signing key and tells the running identity service at once', async () => {
    await migrateIdentity({ db });
    const identityConfig = loadIdentityConfig({}, { dataDir: '/tmp/unused' });
    let told = 0;
    const ctx: OpsContext = {
      db,
      store,
      identityConfig,
      projections: [],
      insideServer: true,
      signingKeysChanged: async () => {
        told++;
      },
    };
    const first = await databaseOperations['keys.rotate'](ctx);
    const second = await databaseOperations['keys.rotate'](ctx);
    expect(told).toBe(2);
    const kids = (await getJwks({ db })).keys.map((k) => k.kid);
    const [firstKid, secondKid] = [first, second].map((out) => /署名鍵 (\S+) を/.exec(out)![1]!);
    // The first rotation's key never signed (the second came within its lead time): it is dropped.
    expect(kids).toContain(secondKid);
    expect(kids).not.toContain(firstKid);
    expect(second).toContain(`未使用の予定鍵 ${firstKid} は破棄しました。`);
    expect(kids).toHaveLength(1);
  });
});
