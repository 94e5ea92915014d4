import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import type { Database } from '../../libs/db/src/index.ts';
import {
  comparePositions,
  createPostgresEventStore,
  parsePosition,
  streamId,
  type Position,
} from '../../libs/event-store/src/index.ts';
import { startProjections } from '../../libs/projections/src/index.ts';
import { buildTestCommandApp } from '../../services/command/src/testing.ts';
import { queryProjections } from '../../services/query/src/index.ts';
import { httpClient, percentile, round } from './http-bench-support.ts';
import { runIfMain, type BenchContext, type BenchDefinition, type BenchFigure } from './bench-context.ts';

const RATE_PER_S = 500;
const MAX_IN_FLIGHT = 64;

/** Measures, for each write, the time from its answer until the `tags` projection has passed its position. */
function lagMeter(db: Database) {
  const pending: { position: Position; answeredAt: number }[] = [];
  const lags: number[] = [];
  let stopped = false;
  const loop = (async () => {
    while (!stopped || pending.length > 0) {
      const { rows } = await db.pool
        .query<{ p: string; s: string }>(
          `SELECT position_primary::text AS p, position_secondary::text AS s
             FROM rm.projection_checkpoints WHERE name = 'tags' AND state = 'live'`,
        )
        .catch(() => ({ rows: [] as { p: string; s: string }[] }));
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
      if (stopped && pending.length > 0 && pending.every((p) => now - p.answeredAt > 30_000)) break;
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
  })();
  return {
    track(position: Position, answeredAt: number) {
      pending.push({ position, answeredAt });
    },
    async finish() {
      stopped = true;
      await loop;
      return { lags: lags.sort((a, b) => a - b), unresolved: pending.length };
    },
  };
}

/** Fires `task` at a fixed rate (open loop) for `durationMs`; returns how many it started. */
async function openLoop(
  ratePerS: number,
  durationMs: number,
  task: () => Promise<void>,
): Promise<{ started: number; skipped: number; elapsedMs: number }> {
  const interval = 1000 / ratePerS;
  const t0 = performance.now();
  let started = 0;
  let skipped = 0;
  let inFlight = 0;
  const all: Promise<void>[] = [];
  for (let i = 0; ; i++) {
    const due = t0 + i * interval;
    if (due - t0 >= durationMs) break;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
    if (inFlight >= MAX_IN_FLIGHT) {
      skipped++;
      continue;
    }
    inFlight++;
    started++;
    all.push(task().finally(() => inFlight--));
  }
  await Promise.all(all);
  return { started, skipped, elapsedMs: performance.now() - t0 };
}

/**
 * (c) Projection lag while commands arrive at 500/s: POST /api/tags through the command app on a
 * port, the `tags` projection running as the worker runs it; lag = from the command's answer until
 * the projection's checkpoint has passed its X-Position. Baseline: the same with events appended
 * straight to the event store (no HTTP). Goal: p99 ≤ 100 ms.
 */
export const bench: BenchDefinition = {
  name: 'http-projection-lag',
  description: 'Projection lag p99 while POST /api/tags arrive at 500/s (vs direct appends at 500/s)',
  async run(ctx: BenchContext): Promise<BenchFigure[]> {
    const durationMs = ctx.durationMs ?? 10_000;
    const log = (line: string) => ctx.log(line);
    const load = os.loadavg()[0]!;
    const db = await ctx.openDatabase({ poolMax: 24 });
    const store = await createPostgresEventStore(db);
    const worker = startProjections({ db, store, projections: queryProjections });
    const { app, testAuth } = await buildTestCommandApp(db, store);
    try {
      await app.listen({ host: '127.0.0.1', port: 0 });
      const port = (app.server.address() as AddressInfo).port;
      const client = httpClient(`http://127.0.0.1:${port}`, MAX_IN_FLIGHT);
      const tenantId = randomUUID();
      const headers = { authorization: `Bearer ${await testAuth.token({ tenantId })}` };

      // Warm-up at the same rate, not measured: JIT, pool connections and the first plans made the
      // first 300 ms of a cold run lag 60–130 ms, which alone was the p99 of 5,000 commands (the
      // direct-append baseline runs second, on a warm process).
      await openLoop(RATE_PER_S, 1000, async () => {
        await client.request('POST', '/api/tags', headers, { name: randomUUID() });
      });

      log(`http-projection-lag: HTTP phase ${durationMs} ms at ${RATE_PER_S}/s`);
      const httpMeter = lagMeter(db);
      let failures = 0;
      const httpRun = await openLoop(RATE_PER_S, durationMs, async () => {
        const res = await client.request('POST', '/api/tags', headers, { name: randomUUID() });
        const position = parsePosition(String(res.headers['x-position'] ?? ''));
        if (res.status !== 201 || !position) {
          failures++;
          return;
        }
        httpMeter.track(position, performance.now());
      });
      const http = await httpMeter.finish();
      client.close();

      log(`http-projection-lag: baseline phase ${durationMs} ms at ${RATE_PER_S}/s (direct appends)`);
      const rawMeter = lagMeter(db);
      const rawRun = await openLoop(RATE_PER_S, durationMs, async () => {
        const tagId = randomUUID();
        const result = await store.append(
          streamId('tag', tagId),
          [
            {
              type: 'TagCreated',
              data: { tag_id: tagId, name: tagId, description: '', group_name: null },
              metadata: {
                tenant_id: tenantId,
                account_id: null,
                correlation_id: tagId,
                causation_id: null,
                schema_version: 1,
              },
            },
          ],
          { expectedRevision: 'no_stream' },
        );
        rawMeter.track(result.position, performance.now());
      });
      const raw = await rawMeter.finish();

      const httpP99 = percentile(http.lags, 99);
      const rawP99 = percentile(raw.lags, 99);
      return [
        {
          name: 'projection lag p99, commands over HTTP',
          value: round(httpP99),
          unit: 'ms',
          baseline: { name: 'projection lag p99, direct appends', value: round(rawP99), unit: 'ms' },
          ratio: round(httpP99 / rawP99, 2),
          goal: '≤ 100 ms',
          met: httpP99 <= 100,
        },
        { name: 'projection lag p50, commands over HTTP', value: round(percentile(http.lags, 50)), unit: 'ms' },
        {
          name: 'commands answered per second (offered 500/s)',
          value: round((httpRun.started - failures) / (httpRun.elapsedMs / 1000)),
          unit: 'commands/s',
          baseline: {
            name: 'direct appends per second',
            value: round(rawRun.started / (rawRun.elapsedMs / 1000)),
            unit: 'appends/s',
          },
        },
        { name: 'commands not sent (64 already in flight)', value: httpRun.skipped, unit: 'requests' },
        {
          name: 'commands failed or never projected',
          value: failures + http.unresolved,
          unit: 'requests',
          goal: '0',
          met: failures + http.unresolved === 0,
        },
        {
          name: 'machine load average (1 min) at start',
          value: round(load, 2),
          unit: 'runnable',
          goal: `≤ ${os.cpus().length} for figures that mean anything`,
        },
      ];
    } finally {
      await app.close();
      await worker.stop();
      await store.close();
      await db.close();
    }
  },
};

await runIfMain(bench, import.meta.url);
