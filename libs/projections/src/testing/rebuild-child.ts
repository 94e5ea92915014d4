// Child process of the kill -9 test: runs the projections runner until it is killed.
import { openDatabase } from '@renkei/db';
import { createPostgresEventStore } from '@renkei/event-store';
import { startProjections } from '../projection-runner.ts';
import { streamTotalsProjection } from './stream-totals.projection.ts';

const db = await openDatabase({ url: process.env.DATABASE_URL!, poolMax: 4, applicationName: 'renkei-kill-child' });
const store = await createPostgresEventStore(db);
startProjections({
  db,
  store,
  projections: [streamTotalsProjection({ version: Number(process.env.PROJECTION_VERSION ?? 1) })],
  batchSize: Number(process.env.BATCH_SIZE ?? 1000),
  logger: {
    info: () => undefined,
    warn: () => undefined,
    error: (o) => console.error('[kill-child]', o),
  },
});
process.stdout.write('started\n');
