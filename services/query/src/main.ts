import { createRemoteJWKSet } from 'jose';
import { defaultResources } from '@renkei/contracts';
import { openDatabase } from '@renkei/db';
import { createEventStore } from '@renkei/event-store';
import { buildQueryApp } from './index.ts';

/** Standalone query service (production: one deployment per service; the worker fills the read models). */
function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
}

const db = await openDatabase({ url: required('DATABASE_URL'), applicationName: 'renkei-query' });
// Read only: account changes identity publishes (deleted accounts' tokens are refused) and the read
// models' lag on /data_sync_statuses; EventStoreDB when set.
const store = await createEventStore({ db, eventstoreUrl: process.env.EVENTSTORE_URL || undefined });
const app = await buildQueryApp({
  db,
  store,
  auth: {
    issuer: required('OIDC_ISSUER'),
    audience: process.env.AUDIENCE_QUERY ?? defaultResources.query,
    jwks: createRemoteJWKSet(new URL(required('OIDC_JWKS_URL'))),
  },
});
const shutdown = async () => {
  await app.close();
  await store.close();
  await db.close();
  process.exit(0);
};
process.once('SIGTERM', shutdown);
process.once('SIGINT', shutdown);
await app.listen({ host: '0.0.0.0', port: Number(process.env.PORT ?? 3003) });
