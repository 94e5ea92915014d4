import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createTestDatabase, openDatabase, type Database } from '@renkei/db';
import { createPostgresEventStore, type EventStore } from '@renkei/event-store';
import { loadIdentityConfig, type IdentityConfig } from '../config.ts';
import { buildIdentityApp, type IdentityApp } from '../index.ts';

export interface IdentityFixture {
  db: Database;
  store: EventStore;
  config: IdentityConfig;
  identity: IdentityApp;
  /** Closes the app and builds a new one on the same database (a restart). */
  restart(): Promise<IdentityApp>;
  close(): Promise<void>;
}

/** A fresh database, event store and identity app, as the gateway would reach it. */
export async function createIdentityFixture(
  overrides: Partial<IdentityConfig> = {},
  options: { engine?: 'postgres' | 'pglite'; clock?: () => Date } = {},
): Promise<IdentityFixture> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'renkei-identity-'));
  const db = options.engine === 'pglite' ? await openDatabase({ dataDir }) : await createTestDatabase();
  const store = await createPostgresEventStore(db);
  const config = loadIdentityConfig({}, { dataDir, smtpCatcherPort: 0, ...overrides });
  const build = () =>
    // Load shedding off: a loaded CI machine must not turn sign-in assertions into 503s.
    buildIdentityApp({
      db,
      store,
      config,
      logger: false,
      rateLimit: false,
      underPressure: false,
      ...(options.clock ? { clock: options.clock } : {}),
    });
  const fixture: IdentityFixture = {
    db,
    store,
    config,
    identity: await build(),
    async restart() {
      await fixture.identity.close();
      fixture.identity = await build();
      return fixture.identity;
    },
    async close() {
      await fixture.identity.close();
      await store.close();
      await db.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return fixture;
}
