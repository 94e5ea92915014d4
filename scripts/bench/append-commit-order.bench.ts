import { randomUUID } from 'node:crypto';
import type { Database } from '../../libs/db/src/index.ts';
import {
  createPostgresEventStore,
  newEventMetadata,
  streamId,
  type EventStore,
} from '../../libs/event-store/src/index.ts';
import { percentile, round, type BenchContext, type BenchDefinition, type BenchFigure } from './bench-context.ts';

const ROUNDS = 5;
const STREAMS_PER_CLIENT = 50;

type Appender = () => Promise<void>;

function storeAppender(store: EventStore): Appender {
  const tenant = randomUUID();
  const streams = Array.from({ length: STREAMS_PER_CLIENT }, () => streamId('bench', randomUUID()));
  const revisions = new Map<string, number>();
  let i = 0;
  return async () => {
    const stream = streams[i++ % streams.length]!;
    const current = revisions.get(stream);
    const result = await store.append(
      stream,
      [{ type: 'BenchAppended', data: { n: i }, metadata: newEventMetadata(tenant) }],
      { expectedRevision: current === undefined ? 'no_stream' : current },
    );
    revisions.set(stream, result.revision);
  };
}

function rawAppender(db: Database): Appender {
  const tenant = randomUUID();
  return async () => {
    await db.pool.query(
      `INSERT INTO es.events (stream_id, revision, event_id, type, data, metadata, tenant_id)
       VALUES ($1, 0, $2, 'BenchAppended', '{}', $3::jsonb, $4)`,
      [streamId('bench', randomUUID()), randomUUID(), JSON.stringify(newEventMetadata(tenant)), tenant],
    );
  };
}

async function closedLoop(durationMs: number, appenders: Appender[]) {
  const latencies: number[] = [];
  const started = performance.now();
  const deadline = started + durationMs;
  await Promise.all(
    appenders.map(async (append) => {
      while (performance.now() < deadline) {
        const t0 = performance.now();
        await append();
        latencies.push(performance.now() - t0);
      }
    }),
  );
  return { count: latencies.length, elapsedMs: performance.now() - started, latencies };
}

/**
 * Issue 9: what the commit-order lock (es migration 0005) costs appends. Each scenario runs in
 * alternating rounds with the lock's trigger enabled and disabled on the same database, so both
 * halves see the same machine load: one process's group-committed appends (the product's path,
 * 8 clients), four stores on one database (four processes appending at once, 16 clients), and 8
 * clients of raw single-row inserts (each its own transaction: the worst case for a lock held
 * through the commit).
 */
export const bench: BenchDefinition = {
  name: 'append-commit-order',
  description: 'appends/s with the commit-order lock vs the same with it disabled (interleaved rounds)',
  async run(ctx: BenchContext): Promise<BenchFigure[]> {
    const roundMs = ctx.durationMs ? ctx.durationMs / ROUNDS : 2000;
    const db = await ctx.openDatabase({ poolMax: 24 });
    const stores = await Promise.all(Array.from({ length: 4 }, () => createPostgresEventStore(db)));
    const setLock = (on: boolean) =>
      db.pool.query(`ALTER TABLE es.events ${on ? 'ENABLE' : 'DISABLE'} TRIGGER events_append_order`);
    const scenarios: { label: string; make: () => Appender[] }[] = [
      {
        label: 'EventStore.append, 1 process, 8 clients',
        make: () => Array.from({ length: 8 }, () => storeAppender(stores[0]!)),
      },
      {
        label: 'EventStore.append, 4 processes, 16 clients',
        make: () => Array.from({ length: 16 }, (_, i) => storeAppender(stores[i % 4]!)),
      },
      { label: 'raw single-row inserts, 8 clients', make: () => Array.from({ length: 8 }, () => rawAppender(db)) },
    ];
    const figures: BenchFigure[] = [];
    try {
      for (const scenario of scenarios) {
        const totals = { on: { count: 0, ms: 0, lat: [] as number[] }, off: { count: 0, ms: 0, lat: [] as number[] } };
        for (let r = 0; r < ROUNDS; r++) {
          for (const mode of r % 2 === 0 ? (['on', 'off'] as const) : (['off', 'on'] as const)) {
            await setLock(mode === 'on');
            const res = await closedLoop(roundMs, scenario.make());
            totals[mode].count += res.count;
            totals[mode].ms += res.elapsedMs;
            totals[mode].lat.push(...res.latencies);
          }
        }
        const rate = (m: 'on' | 'off') => totals[m].count / (totals[m].ms / 1000);
        for (const m of ['on', 'off'] as const) totals[m].lat.sort((a, b) => a - b);
        ctx.log(`${scenario.label}: ${round(rate('on'))}/s with the lock, ${round(rate('off'))}/s without`);
        figures.push(
          {
            metric: `${scenario.label}, commit-order lock`,
            value: round(rate('on')),
            unit: 'events/s',
            baseline: { label: 'same, lock disabled', value: round(rate('off')) },
          },
          {
            metric: `${scenario.label}, p99 with / without the lock`,
            value: round(percentile(totals.on.lat, 99), 2),
            unit: 'ms',
            baseline: { label: 'p99 without', value: round(percentile(totals.off.lat, 99), 2) },
          },
        );
      }
      return figures;
    } finally {
      await setLock(true);
      for (const s of stores) await s.close();
      await db.close();
    }
  },
};
