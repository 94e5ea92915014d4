import { randomUUID } from 'node:crypto';
import { createPostgresEventStore } from '../../libs/event-store/src/index.ts';
import { catchUpProjections } from '../../libs/projections/src/index.ts';
import { streamTotalsProjection } from '../../libs/projections/src/testing/stream-totals.projection.ts';
import { round, type BenchContext, type BenchDefinition, type BenchFigure } from './bench-context.ts';

const STREAMS = 10_000;
const SEED_CHUNK = 100_000;
const BATCH = 1000;

/**
 * (b) A projection rebuilt from position zero over BENCH_EVENTS events (default 1,000,000): the
 * runner (readAll keyset pages, handler, checkpoint, one transaction per 1,000 events) against a raw
 * loop that reads the same events and writes the same rows with the same batched
 * `INSERT … ON CONFLICT`, without checkpoints. Goal: ≥ 0.5× the raw rate.
 */
export const bench: BenchDefinition = {
  name: 'projection-rebuild',
  description: 'projection rebuild events/s vs raw batched INSERT … ON CONFLICT of the same rows',
  async run(ctx: BenchContext): Promise<BenchFigure[]> {
    const total = Number(process.env.BENCH_EVENTS ?? 1_000_000);
    const db = await ctx.openDatabase({ poolMax: 8 });
    const store = await createPostgresEventStore(db);
    try {
      const tenant = randomUUID();
      const seedStarted = performance.now();
      for (let start = 0; start < total; start += SEED_CHUNK) {
        const end = Math.min(total, start + SEED_CHUNK);
        // Committed chunk by chunk, so the events carry several transaction ids like real ones.
        await db.pool.query(
          `INSERT INTO es.events (stream_id, revision, event_id, type, data, metadata, tenant_id)
           SELECT 'rebuild-' || (g % $1), g / $1, gen_random_uuid(), 'SampleCounted',
                  jsonb_build_object('n', g),
                  jsonb_build_object('tenant_id', $2::text, 'account_id', null, 'correlation_id',
                    gen_random_uuid(), 'causation_id', null, 'schema_version', 1),
                  $2::uuid
             FROM generate_series($3::int, $4::int) AS g`,
          [STREAMS, tenant, start, end - 1],
        );
      }
      await db.pool.query('ANALYZE es.events');
      ctx.log(`seeded ${total} events in ${((performance.now() - seedStarted) / 1000).toFixed(1)} s`);
      const head = await store.headPosition();

      // Raw: the same rows, the same statement, no runner.
      await db.pool.query('CREATE SCHEMA IF NOT EXISTS rm');
      await db.pool.query(
        `CREATE TABLE rm.raw_totals (stream text PRIMARY KEY, tenant_id uuid NOT NULL, events int NOT NULL,
           total bigint NOT NULL, last_revision int NOT NULL, ids text NOT NULL)`,
      );
      const rawStarted = performance.now();
      let cursor = { primary: '0', secondary: '0' };
      let rawCount = 0;
      for (;;) {
        const { rows } = await db.pool.query<{ t: string; g: string; stream_id: string; revision: number; n: number }>(
          `SELECT transaction_id::text AS t, global_position::text AS g, stream_id, revision, (data->>'n')::int AS n
             FROM es.events WHERE (transaction_id, global_position) > ($1::text::xid8, $2::bigint)
            ORDER BY transaction_id, global_position LIMIT ${BATCH}`,
          [cursor.primary, cursor.secondary],
        );
        if (rows.length === 0) break;
        const folded = new Map<string, { events: number; total: number; last: number }>();
        for (const r of rows) {
          const f = folded.get(r.stream_id) ?? { events: 0, total: 0, last: -1 };
          f.events += 1;
          f.total += r.n;
          f.last = r.revision;
          folded.set(r.stream_id, f);
        }
        const list = [...folded.entries()];
        await db.pool.query(
          `INSERT INTO rm.raw_totals AS cur (stream, tenant_id, events, total, last_revision, ids)
           SELECT s, $2::uuid, e, t, l, '' FROM unnest($1::text[], $3::int[], $4::bigint[], $5::int[]) AS x(s, e, t, l)
           ON CONFLICT (stream) DO UPDATE SET events = cur.events + excluded.events, total = cur.total + excluded.total,
             last_revision = excluded.last_revision`,
          [
            list.map(([s]) => s),
            tenant,
            list.map(([, f]) => f.events),
            list.map(([, f]) => f.total),
            list.map(([, f]) => f.last),
          ],
        );
        rawCount += rows.length;
        const lastRow = rows[rows.length - 1]!;
        cursor = { primary: lastRow.t, secondary: lastRow.g };
      }
      const rawSeconds = (performance.now() - rawStarted) / 1000;
      ctx.log(`raw: ${rawCount} events in ${rawSeconds.toFixed(1)} s`);

      const projection = streamTotalsProjection({ name: 'bench_totals', table: 'bench_totals', trackIds: false });
      const runnerStarted = performance.now();
      await catchUpProjections({
        db,
        store,
        projections: [projection],
        batchSize: BATCH,
        until: head,
        timeoutMs: 3_600_000,
      });
      const runnerSeconds = (performance.now() - runnerStarted) / 1000;
      ctx.log(`runner: ${total} events in ${runnerSeconds.toFixed(1)} s`);

      const check = await db.pool.query<{ same: boolean }>(
        `SELECT NOT EXISTS (
           SELECT stream, events, total, last_revision FROM rm.raw_totals
           EXCEPT SELECT stream, events, total, last_revision FROM rm.bench_totals
         ) AS same`,
      );
      if (!check.rows[0]?.same) throw new Error('projection rows differ from the raw rows');

      const rawRate = rawCount / rawSeconds;
      const runnerRate = total / runnerSeconds;
      return [
        {
          metric: `projection rebuild, ${total.toLocaleString('en-US')} events`,
          value: round(runnerRate),
          unit: 'events/s',
          baseline: { label: 'raw batched INSERT … ON CONFLICT, same rows', value: round(rawRate) },
          goal: '≥ 0.5× baseline',
          met: runnerRate / rawRate >= 0.5,
        },
      ];
    } finally {
      await store.close();
      await db.close();
    }
  },
};
