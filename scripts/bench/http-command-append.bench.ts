import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { createPostgresEventStore, newEventMetadata } from '../../libs/event-store/src/index.ts';
import { buildTestCommandApp } from '../../services/command/src/testing.ts';
import { closedLoop, percentile, round, runLoadWorker } from './http-bench-support.ts';
import { runIfMain, type BenchContext, type BenchDefinition, type BenchFigure } from './bench-context.ts';

const HTTP_CONCURRENCY = 16;
const RAW_CLIENTS = 8;
const ROUNDS = 5;

/**
 * (a) HTTP command appends: POST /api/tags through the command app listening on a port, 16 clients
 * on a load-generator thread of their own,
 * against raw single-statement event appends with the same version check (8 clients) on the same
 * database, the two alternating in five rounds. Goal: ≥ 0.5× the raw rate, p99 ≤ 20 ms.
 */
export const bench: BenchDefinition = {
  name: 'http-command-append',
  description: 'HTTP command appends/s (POST /api/tags, concurrency 16) vs raw single-statement appends (8 clients)',
  async run(ctx: BenchContext): Promise<BenchFigure[]> {
    const durationMs = ctx.durationMs ?? 10_000;
    const log = (line: string) => ctx.log(line);
    const db = await ctx.openDatabase({ poolMax: 24 });
    const store = await createPostgresEventStore(db);
    const { app, testAuth } = await buildTestCommandApp(db, store);
    try {
      await app.listen({ host: '127.0.0.1', port: 0 });
      const port = (app.server.address() as AddressInfo).port;
      const token = await testAuth.token({ tenantId: randomUUID() });
      const load = (ms: number) =>
        runLoadWorker({
          baseUrl: `http://127.0.0.1:${port}`,
          path: '/api/tags',
          headers: { authorization: `Bearer ${token}` },
          concurrency: HTTP_CONCURRENCY,
          durationMs: ms,
        });

      // Warm up JIT, pool connections and the plan cache.
      await load(1000);

      // The two phases alternate in short rounds, so a slower minute of a shared machine falls on both
      // sides of the ratio instead of on whichever phase happened to run then.
      const tenantId = randomUUID();
      const metadata = JSON.stringify(newEventMetadata(tenantId));
      const roundMs = Math.max(500, Math.round(durationMs / ROUNDS));
      const latencies: number[] = [];
      let failures = 0;
      let httpElapsed = 0;
      let raw = 0;
      let rawElapsed = 0;
      log(
        `http-command-append: ${ROUNDS} rounds of ${roundMs} ms HTTP (concurrency ${HTTP_CONCURRENCY}) and ${roundMs} ms raw (${RAW_CLIENTS} clients)`,
      );
      for (let round = 0; round < ROUNDS; round++) {
        const http = await load(roundMs);
        for (const l of http.latencies) latencies.push(l);
        failures += http.failures;
        httpElapsed += http.elapsedMs;
        rawElapsed += await closedLoop(RAW_CLIENTS, roundMs, async () => {
          // One statement; the (stream_id, revision) unique key is the same version check as an append to a new stream.
          await db.pool.query(
            `INSERT INTO es.events (stream_id, revision, event_id, type, data, metadata, tenant_id)
             VALUES ($1, 0, $2, 'BenchAppended', $3::jsonb, $4::jsonb, $5)`,
            [`bench-${randomUUID()}`, randomUUID(), JSON.stringify({ n: raw }), metadata, tenantId],
          );
          raw++;
        });
      }
      latencies.sort((a, b) => a - b);
      const httpRate = (latencies.length - failures) / (httpElapsed / 1000);
      const rawRate = raw / (rawElapsed / 1000);
      const p50 = percentile(latencies, 50);
      const p99 = percentile(latencies, 99);
      return [
        {
          name: 'HTTP command appends/s (POST /api/tags, concurrency 16)',
          value: round(httpRate),
          unit: 'appends/s',
          baseline: { name: 'raw single-statement appends, 8 clients', value: round(rawRate), unit: 'appends/s' },
          ratio: round(httpRate / rawRate, 2),
          goal: '≥ 0.5× baseline',
          met: httpRate / rawRate >= 0.5,
        },
        { name: 'HTTP command p50 latency', value: round(p50, 2), unit: 'ms' },
        { name: 'HTTP command p99 latency', value: round(p99, 2), unit: 'ms', goal: '≤ 20 ms', met: p99 <= 20 },
        { name: 'HTTP command failures (non-201)', value: failures, unit: 'requests', goal: '0', met: failures === 0 },
      ];
    } finally {
      await app.close();
      await store.close();
      await db.close();
    }
  },
};

await runIfMain(bench, import.meta.url);
