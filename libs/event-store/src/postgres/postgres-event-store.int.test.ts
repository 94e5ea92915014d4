import { createTestDatabase } from '@renkei/db';
import { eventStoreContract } from '../event-store.contract.ts';
import { createPostgresEventStore } from './postgres-event-store.ts';

eventStoreContract('Postgres', async () => {
  const db = await createTestDatabase();
  const store = await createPostgresEventStore(db);
  return {
    store,
    async cleanup() {
      await store.close();
      await db.close();
    },
  };
});
