export * from './types.ts';
export * from './errors.ts';
export * from './position.ts';
export * from './stream-id.ts';
export * from './metadata.ts';
export * from './read-stream-or-empty.ts';
export { createPostgresEventStore, type PostgresEventStoreOptions } from './postgres/postgres-event-store.ts';
export { createEventStore, createEventStoreDbStore } from './create-event-store.ts';
