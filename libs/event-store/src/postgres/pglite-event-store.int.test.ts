import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDatabase } from '@renkei/db';
import { eventStoreContract } from '../event-store.contract.ts';
import { createPostgresEventStore } from './postgres-event-store.ts';

eventStoreContract('Postgres on embedded PGlite', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'renkei-es-pglite-'));
  const db = await openDatabase({ dataDir });
  const store = await createPostgresEventStore(db);
  return {
    store,
    async cleanup() {
      await store.close();
      await db.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
});
