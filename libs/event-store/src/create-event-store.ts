import type { Database } from '@renkei/db';
import { createEventStoreDbStore } from './eventstoredb/eventstoredb-event-store.ts';
import { createPostgresEventStore } from './postgres/postgres-event-store.ts';
import type { EventStore } from './types.ts';

/** EventStoreDB when `eventstoreUrl` is set (EVENTSTORE_URL), otherwise the Postgres `es` schema of `db`. */
export async function createEventStore(options: {
  db: Database;
  eventstoreUrl?: string | undefined;
  pollIntervalMs?: number;
}): Promise<EventStore> {
  if (options.eventstoreUrl) return createEventStoreDbStore(options.eventstoreUrl);
  return createPostgresEventStore(options.db, options.pollIntervalMs ? { pollIntervalMs: options.pollIntervalMs } : {});
}
