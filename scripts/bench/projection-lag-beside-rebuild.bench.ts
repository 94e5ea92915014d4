import { randomUUID } from 'node:crypto';
import type { Database } from '../../libs/db/src/index.ts';
import {
  comparePositions,
  createPostgresEventStore,
  newEventMetadata,
  streamId,
  type EventStore,
  type Position,
} from '../../libs/event-store/src/index.ts';
import { catchUpProjections, defineProjection, startProjections } from '../../libs/projections/src/index.ts';
import { streamTotalsProjection } from '../../libs/projections/src/testing/stream-totals.projection.ts';
import { percentile, round, type BenchContext, type BenchDefinition, type BenchFigure } from './bench-context.ts';

const STREAMS = 10_000;
const SEED_CHUNK = 100_000;
const RATE_PER_S = 200;
const LIVE = 'live_ticks';

/** A live projection of its own event type, so the rebuilt one's million events are not its work. */
const liveProjection = defineProjection({
  name: LIVE,
  version: 1,
  eventTypes: ['LiveTicked'],
  tables: ['live_ticks'],
  async setup(trx, t) {
    await trx.schema
      .createTable(t.live_ticks)
      .addColumn('stream', 'text', (c) => c.primaryKey())
      .addColumn('ticks', 'integer', (c) => c.notNull())
      .execute();
  },
  async handle(trx, events, t) {
    // One event per live stream: the row only says the projection has been there.
    await trx
      .withTables<Record<string, { stream: string; ticks: number }>>()
      .insertInto(t.live_ticks)
      .values(events.map((e) => ({ stream: e.stream, ticks: 1 })))
      .onConflict((oc) => oc.column('stream').doNothing())
      .execute();
  },
});

/** For each append, the time from its answer until the live projection's checkpoint has passed it. */
function lagMeter(db: Database) {
  const pending: { position: Position; answeredAt: number }[] = [];
  const lags: number[] = [];
  let stopped = false;
  const loop = (async () => {
    while (!stopped || pending.length > 0) {
      const { rows } = await db.pool.query<{ p: string; s: string }>(
        `SELECT position_primary::text AS p, position_secondary::text AS s
           FROM rm.projection_checkpoints WHERE name = $1 AND state = 'live'`,
        [LIVE],
      );
      const now = performance.now();
      const row = rows[0];
      if (row) {
        const checkpoint = { primary: BigInt(row.p), secondary: BigInt(row.s) };
        for (let i = pending.length - 1; i >= 0; i--) {
          if (comparePositions(checkpoint, pending[i]!.position) >= 0) {
            lags.push(now - pending[i]!.answeredAt);
            pending.splice(i, 1);
          }
        }
      }
      // Given up after 30 s: those count as never projected.
      if (stopped && pending.every((p) => now - p.answeredAt > 30_000)) break;
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
  })();
  return {
    track: (position: Position, answeredAt: number) => pending.push({ position, answeredAt }),
    async finish() {
      stopped = true;
      await loop;
      return { lags: lags.sort((a, b) => a - b), unresolved: pending.length };
    },
  };
}

/** Appends one LiveTicked event at RATE_PER_S (open loop) until `until` resolves or `durationMs` passes. */
async function tick(store: EventStore, meter: ReturnType<typeof lagMeter>, stop: () => boolean): Promise<number> {
  const tenant = randomUUID();
  const interval = 1000 / RATE_PER_S;
  const t0 = performance.now();
  const all: Promise<void>[] = [];
  for (let i = 0; !stop(); i++) {
    const wait = t0 + i * interval - performance.now();
    if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
    all.push(
      store
        .append(
          streamId('live', randomUUID()),
          [{ type: 'LiveTicked', data: {}, metadata: newEventMetadata(tenant) }],
          {
            expectedRevision: 'no_stream',
          },
        )
        .then((r) => void meter.track(r.position, performance.now())),
    );
  }
  await Promise.all(all);
  return all.length;
}

/**
 * Issue 9: a live projection's lag while a projection is rebuilt from zero beside it over
 * BENCH_EVENTS events (default 1,000,000), in the same process and database, the way a version bump
 * rebuilds one read model while the others follow new events. Appends arrive at 200/s; lag = from an
 * append's answer until the live projection's checkpoint has passed its position. Baseline: the same
 * lag, same run, without the rebuild. Goal: p99 ≤ 1 s. A middle phase holds a transaction open in
 * another database of the server meanwhile, which the reader once waited for.
 */
export const bench: BenchDefinition = {
  name: 'projection-lag-beside-rebuild',
  description: 'live projection lag p99 while a 1,000,000-event rebuild runs beside it (vs without)',
  async run(ctx: BenchContext): Promise<BenchFigure[]> {
    const total = Number(process.env.BENCH_EVENTS ?? 1_000_000);
    const baselineMs = ctx.durationMs ?? 10_000;
    const db = await ctx.openDatabase({ poolMax: 16 });
    const store = await createPostgresEventStore(db);
    let live: { stop(): Promise<void> } | undefined;
    try {
      const tenant = randomUUID();
      const seedStarted = performance.now();
      for (let start = 0; start < total; start += SEED_CHUNK) {
        const end = Math.min(total, start + SEED_CHUNK);
        await db.pool.query(
          `INSERT INTO es.events (stream_id, revision, event_id, type, data, metadata, tenant_id)
           SELECT 'rebuild-' || (g % $1), g / $1, gen_random_uuid(), 'SampleCounted', jsonb_build_object('n', g),
                  jsonb_build_object('tenant_id', $2::text, 'account_id', null, 'correlation_id',
                    gen_random_uuid(), 'causation_id', null, 'schema_version', 1),
                  $2::uuid
             FROM generate_series($3::int, $4::int) AS g`,
          [STREAMS, tenant, start, end - 1],
        );
      }
      await db.pool.query('ANALYZE es.events');
      ctx.log(`seeded ${total} events in ${((performance.now() - seedStarted) / 1000).toFixed(1)} s`);
      const seeded = await store.headPosition();

      live = startProjections({ db, store, projections: [liveProjection] });
      const caughtUp = async () => {
        for (;;) {
          const { rows } = await db.pool
            .query<{ p: string; s: string }>(
              `SELECT position_primary::text AS p, position_secondary::text AS s
                 FROM rm.projection_checkpoints WHERE name = $1 AND state = 'live'`,
              [LIVE],
            )
            .catch(() => ({ rows: [] as { p: string; s: string }[] }));
          const row = rows[0];
          if (row && comparePositions({ primary: BigInt(row.p), secondary: BigInt(row.s) }, seeded) >= 0) return;
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      };
      await caughtUp();

      ctx.log(`baseline: ${baselineMs} ms of appends at ${RATE_PER_S}/s, no rebuild`);
      const baseMeter = lagMeter(db);
      const baseEnd = performance.now() + baselineMs;
      await tick(store, baseMeter, () => performance.now() >= baseEnd);
      const base = await baseMeter.finish();

      // Another database on the same server holding an xid: before es migration 0005 it stopped every
      // projection of the server until it ended.
      ctx.log(`${baselineMs} ms of appends at ${RATE_PER_S}/s while another database holds a transaction open`);
      const other = await ctx.openDatabase({ poolMax: 1 });
      const held = await other.pool.connect();
      let heldLags: { lags: number[]; unresolved: number };
      try {
        await held.query('BEGIN');
        await held.query('SELECT pg_current_xact_id()');
        const heldMeter = lagMeter(db);
        const heldEnd = performance.now() + baselineMs;
        await tick(store, heldMeter, () => performance.now() >= heldEnd);
        heldLags = await heldMeter.finish();
        await held.query('ROLLBACK');
      } finally {
        held.release();
        await other.close();
      }

      ctx.log(`rebuild of ${total} events beside the live projection, appends at ${RATE_PER_S}/s`);
      const meter = lagMeter(db);
      let rebuilding = true;
      const rebuildStarted = performance.now();
      const rebuild = catchUpProjections({
        db,
        store,
        projections: [streamTotalsProjection({ name: 'rebuilt_totals', table: 'rebuilt_totals', trackIds: false })],
        batchSize: 1000,
        until: seeded,
        timeoutMs: 3_600_000,
      }).finally(() => (rebuilding = false));
      const appended = await tick(store, meter, () => !rebuilding);
      await rebuild;
      const rebuildSeconds = (performance.now() - rebuildStarted) / 1000;
      const beside = await meter.finish();
      ctx.log(`rebuild done in ${rebuildSeconds.toFixed(1)} s; ${appended} live appends measured`);

      const p99 = percentile(beside.lags, 99);
      return [
        {
          metric: `live projection lag p99 beside a ${total.toLocaleString('en-US')}-event rebuild`,
          value: round(p99),
          unit: 'ms',
          baseline: { label: 'lag p99 without the rebuild', value: round(percentile(base.lags, 99)) },
          goal: '≤ 1000 ms',
          met: p99 <= 1000 && beside.unresolved === 0,
        },
        { metric: 'live lag p50 beside the rebuild', value: round(percentile(beside.lags, 50)), unit: 'ms' },
        { metric: 'live lag max beside the rebuild', value: round(beside.lags.at(-1) ?? 0), unit: 'ms' },
        {
          metric: 'live projection lag p99 while another database holds a transaction open',
          value: round(percentile(heldLags.lags, 99)),
          unit: 'ms',
          baseline: { label: 'lag p99 without it', value: round(percentile(base.lags, 99)) },
          goal: '≤ 1000 ms',
          met: percentile(heldLags.lags, 99) <= 1000 && heldLags.unresolved === 0,
        },
        {
          metric: 'live appends never projected',
          value: beside.unresolved + base.unresolved + heldLags.unresolved,
          unit: 'appends',
          goal: '0',
          met: beside.unresolved + base.unresolved + heldLags.unresolved === 0,
        },
        { metric: 'rebuild rate beside the live load', value: round(total / rebuildSeconds), unit: 'events/s' },
      ];
    } finally {
      await live?.stop();
      await store.close();
      await db.close();
    }
  },
};
