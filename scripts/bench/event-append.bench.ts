import { randomUUID } from 'node:crypto';
import {
  createPostgresEventStore,
  newEventMetadata,
  streamId,
  type EventStore,
} from '../../libs/event-store/src/index.ts';
import type { Database } from '../../libs/db/src/index.ts';
import { percentile, round, type BenchContext, type BenchDefinition, type BenchFigure } from './bench-context.ts';

const CLIENTS = 8;
const STREAMS_PER_CLIENT = 50;

/**
 * (a, raw half) Single-event appends with an expected-revision check from 8 clients: one SQL
 * statement per append (the floor any append path pays), then the same through the event store's
 * `append` (transaction, idempotency lookup, revision check).
 */
export const bench: BenchDefinition = {
  name: 'event-append',
  description: 'raw single-statement appends with version check (8 clients) vs EventStore.append (8 clients)',
  async run(ctx: BenchContext): Promise<BenchFigure[]> {
    const durationMs = ctx.durationMs ?? 10_000;
    const db = await ctx.openDatabase({ poolMax: CLIENTS + 4 });
    const store = await createPostgresEventStore(db);
    try {
      const raw = await closedLoop(durationMs, (client) => rawAppender(db, client));
      ctx.log(`raw: ${raw.count} appends in ${durationMs} ms`);
      const lib = await closedLoop(durationMs, (client) => storeAppender(store, client));
      ctx.log(`EventStore.append: ${lib.count} appends in ${durationMs} ms`);
      const rawRate = raw.count / (raw.elapsedMs / 1000);
      const libRate = lib.count / (lib.elapsedMs / 1000);
      return [
        { metric: 'raw single-statement appends, 8 clients', value: round(rawRate), unit: 'events/s' },
        { metric: 'raw append p50', value: round(raw.p50, 2), unit: 'ms' },
        { metric: 'raw append p99', value: round(raw.p99, 2), unit: 'ms' },
        {
          metric: 'EventStore.append, 8 clients',
          value: round(libRate),
          unit: 'events/s',
          baseline: { label: 'raw single-statement appends', value: round(rawRate) },
          goal: '≥ 0.5× baseline',
          met: libRate / rawRate >= 0.5,
        },
        { metric: 'EventStore.append p50', value: round(lib.p50, 2), unit: 'ms' },
        { metric: 'EventStore.append p99', value: round(lib.p99, 2), unit: 'ms', goal: '≤ 20 ms', met: lib.p99 <= 20 },
      ];
    } finally {
      await store.close();
      await db.close();
    }
  },
};

type Appender = () => Promise<void>;

function rawAppender(db: Database, client: number): Appender {
  const tenant = randomUUID();
  const streams = Array.from({ length: STREAMS_PER_CLIENT }, () => streamId('bench', randomUUID()));
  const revisions = new Map<string, number>();
  let i = client;
  return async () => {
    const stream = streams[i++ % streams.length]!;
    const current = revisions.get(stream) ?? null;
    const { rowCount } = await db.pool.query(
      `INSERT INTO es.events (stream_id, revision, event_id, type, data, metadata, tenant_id)
       SELECT $1, $2, $3, 'BenchAppended', $4::jsonb, $5::jsonb, $6
        WHERE (SELECT max(revision) FROM es.events WHERE stream_id = $1) IS NOT DISTINCT FROM $7::int`,
      [
        stream,
        current === null ? 0 : current + 1,
        randomUUID(),
        JSON.stringify({ n: i }),
        JSON.stringify(newEventMetadata(tenant)),
        tenant,
        current,
      ],
    );
    if (rowCount !== 1) throw new Error('raw append lost its version check');
    revisions.set(stream, current === null ? 0 : current + 1);
  };
}

function storeAppender(store: EventStore, client: number): Appender {
  const tenant = randomUUID();
  const streams = Array.from({ length: STREAMS_PER_CLIENT }, () => streamId('bench', randomUUID()));
  const revisions = new Map<string, number>();
  let i = client;
  return async () => {
    const stream = streams[i++ % streams.length]!;
    const current = revisions.get(stream);
    const result = await store.append(
      stream,
      [{ type: 'BenchAppended', data: { n: i }, metadata: newEventMetadata(tenant) }],
      {
        expectedRevision: current === undefined ? 'no_stream' : current,
      },
    );
    revisions.set(stream, result.revision);
  };
}

async function closedLoop(durationMs: number, make: (client: number) => Appender) {
  const latencies: number[] = [];
  const started = performance.now();
  const deadline = started + durationMs;
  await Promise.all(
    Array.from({ length: CLIENTS }, async (_, client) => {
      const append = make(client);
      while (performance.now() < deadline) {
        const t0 = performance.now();
        await append();
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const elapsedMs = performance.now() - started;
  latencies.sort((a, b) => a - b);
  return { count: latencies.length, elapsedMs, p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
}
