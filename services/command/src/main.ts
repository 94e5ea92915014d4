import { createRemoteJWKSet } from 'jose';
import { defaultResources } from '@renkei/contracts';
import { openDatabase } from '@renkei/db';
import { createEventStore } from '@renkei/event-store';
import { buildCommandApp } from './index.ts';

/** Standalone command service (production: one deployment per service). */
function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
}

const db = await openDatabase({ url: required('DATABASE_URL'), applicationName: 'renkei-command' });
// Postgres `es` schema by default; EventStoreDB when EVENTSTORE_URL is set. cmd.* tables stay in Postgres.
const store = await createEventStore({ db, eventstoreUrl: process.env.EVENTSTORE_URL || undefined });
const app = await buildCommandApp({
  db,
  store,
  auth: {
    issuer: required('OIDC_ISSUER'),
    audience: process.env.AUDIENCE_COMMAND ?? defaultResources.command,
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
await app.listen({ host: '0.0.0.0', port: Number(process.env.PORT ?? 3002) });
