import path from 'node:path';
import { pino } from 'pino';
import { openDatabase } from '@renkei/db';
import { createEventStore } from '@renkei/event-store';
import { startWorker } from './index.ts';
import { projections } from './projections.ts';
import { reactors } from './reactors.ts';

// Standalone worker (production: its own deployment). DATABASE_URL is required there; without it
// the embedded database in RENKEI_DATA_DIR is opened, which only works when no other process owns it.
const logger = pino({ name: 'worker', level: process.env.LOG_LEVEL ?? 'info' });
const db = await openDatabase({
  url: process.env.DATABASE_URL,
  dataDir: process.env.DATABASE_URL ? undefined : path.resolve(process.env.RENKEI_DATA_DIR ?? 'data'),
  applicationName: 'renkei-worker',
});
const store = await createEventStore({ db, eventstoreUrl: process.env.EVENTSTORE_URL || undefined });
// Woken at every process's append (the store LISTENs), its caught-up loops poll only as a safety net.
const worker = await startWorker({ db, store, projections, reactors, logger });

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  logger.info({ signal }, 'shutting down');
  await worker.stop();
  await store.close();
  await db.close();
  process.exit(0);
}
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));
