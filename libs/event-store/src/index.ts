export * from './types.ts';
export * from './errors.ts';
export * from './position.ts';
export * from './stream-id.ts';
export { createPostgresEventStore, type PostgresEventStoreOptions } from './postgres/postgres-event-store.ts';
export { createEventStoreDbStore } from './eventstoredb/eventstoredb-event-store.ts';
export { createEventStore } from './create-event-store.ts';
