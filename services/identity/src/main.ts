import { openDatabase } from '@renkei/db';
import { createEventStore } from '@renkei/event-store';
import { buildIdentityApp, loadIdentityConfig } from './index.ts';

// Standalone identity service. Environment: see the report / README (PORT, HOST, DATABASE_URL,
// RENKEI_DATA_DIR, EVENTSTORE_URL, PUBLIC_ORIGIN, AUDIENCE_MAIN/QUERY/COMMAND, SMTP_URL, SMTP_PORT, MAIL_FROM,
// OIDC_EXTERNAL_AUTHORITY, ACCESS_TOKEN_TTL_SECONDS, LOG_LEVEL).
const config = loadIdentityConfig(process.env);
const db = await openDatabase({
  url: process.env.DATABASE_URL,
  dataDir: config.dataDir,
  applicationName: 'renkei-identity',
});
// Tenant and account events go to the same store the worker reads (EventStoreDB when configured).
const store = await createEventStore({ db, eventstoreUrl: process.env.EVENTSTORE_URL });
const { app, issuer } = await buildIdentityApp({ db, store, config });
const port = Number(process.env.PORT ?? 3001);
await app.listen({ port, host: process.env.HOST ?? '127.0.0.1' });
app.log.info({ issuer }, 'identity service ready');

let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    void (async () => {
      await app.close();
      await store.close();
      await db.close();
      process.exit(0);
    })();
  });
}
