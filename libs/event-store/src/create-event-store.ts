import type { Database } from '@renkei/db';
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

/**
 * The EventStoreDB implementation, loaded on demand: its gRPC client takes seconds to import, which
 * every process on the default (Postgres) store would otherwise pay at start.
 */
export async function createEventStoreDbStore(url: string): Promise<EventStore> {
  const { createEventStoreDbStore: create } = await import('./eventstoredb/eventstoredb-event-store.ts');
  return create(url);
}
