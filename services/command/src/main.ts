import { createRemoteJWKSet } from 'jose';
import { defaultResources } from '@renkei/contracts';
import { openDatabase } from '@renkei/db';
import { createPostgresEventStore } from '@renkei/event-store';
import { buildCommandApp } from './index.ts';

/** Standalone command service (production: one deployment per service). */
function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
}

if (process.env.EVENTSTORE_URL) {
  throw new Error(
    'EVENTSTORE_URL is set, but this build has no EventStoreDB event store yet; unset it to use Postgres.',
  );
}
const db = await openDatabase({ url: required('DATABASE_URL'), applicationName: 'renkei-command' });
const store = await createPostgresEventStore(db);
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
