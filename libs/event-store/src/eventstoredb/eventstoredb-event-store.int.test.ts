import { describe } from 'vitest';
import { eventStoreContract } from '../event-store.contract.ts';
import { createEventStoreDbStore } from './eventstoredb-event-store.ts';

const url = process.env.EVENTSTORE_URL;

async function reachable(connection: string | undefined): Promise<boolean> {
  if (!connection) return false;
  const store = createEventStoreDbStore(connection);
  try {
    await Promise.race([
      store.headPosition(),
      new Promise((_, reject) => setTimeout(() => reject(new Error('timeout')), 5_000)),
    ]);
    return true;
  } catch {
    return false;
  } finally {
    await store.close().catch(() => undefined);
  }
}

const available = await reachable(url);
if (!available) {
  console.log('[event-store] EventStoreDB contract suite SKIPPED: no EVENTSTORE_URL reachable');
}

eventStoreContract(
  'EventStoreDB',
  async () => {
    const store = createEventStoreDbStore(url!);
    return { store, cleanup: () => store.close() };
  },
  available ? describe : describe.skip,
);
