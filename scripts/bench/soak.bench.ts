import fs from 'node:fs';
import https from 'node:https';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createTestDatabase } from '../../libs/db/src/index.ts';
import { addAccount, addTenant, issueAccessToken, loadIdentityConfig } from '../../services/identity/src/index.ts';
import { loadEmbeddedConfig } from '../../services/embedded/src/config.ts';
import { startEmbedded } from '../../services/embedded/src/system.ts';
import { percentile, round } from './http-bench-support.ts';
import { runIfMain, type BenchContext, type BenchDefinition, type BenchFigure } from './bench-context.ts';

/** Requests per second offered, both tenants together (open loop: a slow answer does not slow the offer). */
const RATE_PER_S = 40;
/** Every this many tag creates, the next tag list is read with X-Min-Position: read-your-writes lag. */
const LAG_PROBE_EVERY = 3;

interface Minute {
  requests: number;
  errors: number;
  /** `<kind> <status>` of each failure, counted. */
  failures: Map<string, number>;
  latencies: number[];
  lags: number[];
}

/**
 * Soak (issue 10 §3): the whole embedded system in this process (gateway, identity, command, query,
 * worker) on PGlite (`--embedded`) or local PostgreSQL, five minutes of mixed reads and writes from
 * two tenants through the https gateway at a fixed rate. Per minute: errors, latency p99, the
 * read-your-writes lag p99 (a tag create's answer until a list read with its X-Min-Position answers),
 * RSS and V8 heap after a GC-neutral sample. Baseline: the first minute after warm-up; the ratio of the
 * last minute to it shows growth. `SOAK_MINUTES` shortens or lengthens the run.
 */
export const bench: BenchDefinition = {
  name: 'soak',
  description: 'Five minutes of mixed reads and writes from two tenants: errors, p99, memory and lag per minute',
  async run(ctx: BenchContext): Promise<BenchFigure[]> {
    const minutes = Number(process.env.SOAK_MINUTES ?? 5);
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'renkei-soak-'));
    const pg = ctx.embedded ? undefined : await createTestDatabase({ poolMax: 4 });
    const port = await freePort();
    const config = {
      ...loadEmbeddedConfig({ RENKEI_DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: 'error' }),
      host: '127.0.0.1',
      databaseUrl: pg?.url,
    };
    const load = os.loadavg()[0]!;
    ctx.log(`soak: starting the system on ${ctx.embedded ? 'PGlite' : 'PostgreSQL'} (demo seed included)`);
    const system = await startEmbedded(config);
    const agent = new https.Agent({ keepAlive: true, maxSockets: 32, rejectUnauthorized: false });
    try {
      const gatewayPort = port;
      const identityConfig = loadIdentityConfig(process.env, { publicOrigin: config.publicOrigin, dataDir });
      const added = await addTenant(
        { db: system.db, store: system.store },
        {
          slug: 'soak-b',
          name: '浜松連携病院',
          ownerEmail: 'owner@soak-b.example.jp',
          password: 'Renkei-Soak-2026',
        },
      );
      await addAccount(
        { db: system.db, store: system.store },
        {
          tenantId: added.tenantId,
          username: '連携 花子',
          email: 'member@soak-b.example.jp',
          password: 'Renkei-Soak-2026',
          role: 'member',
        },
      );
      // Two staff of each tenant share the load, as a liaison office does: the per-account rate
      // limit (600 requests/min per service) is a product setting this bench must not run into.
      const tenants = await Promise.all(
        [
          { slug: 'demo', email: 'owner@demo.example.jp' },
          { slug: 'soak-b', email: 'owner@soak-b.example.jp' },
          { slug: 'demo', email: 'member@demo.example.jp' },
          { slug: 'soak-b', email: 'member@soak-b.example.jp' },
        ].map(async (t) => ({
          command: await issueAccessToken(
            { db: system.db, config: identityConfig },
            { tenantSlug: t.slug, email: t.email, audience: 'command' },
          ),
          query: await issueAccessToken(
            { db: system.db, config: identityConfig },
            { tenantSlug: t.slug, email: t.email, audience: 'query' },
          ),
        })),
      );
      const { rows } = await system.db.pool.query<{ id: string }>(
        'SELECT id FROM ref.medical_institutions ORDER BY code LIMIT 300',
      );
      const institutions = rows.map((r) => r.id);

      const call = (method: string, url: string, token: string, body?: unknown, extra: Record<string, string> = {}) =>
        new Promise<{ status: number; position: string | undefined }>((resolve) => {
          const payload = body === undefined ? undefined : JSON.stringify(body);
          const req = https.request(
            {
              agent,
              host: '127.0.0.1',
              port: gatewayPort,
              method,
              path: url,
              headers: {
                authorization: `Bearer ${token}`,
                ...(payload
                  ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }
                  : {}),
                ...extra,
              },
            },
            (res) => {
              res.resume();
              res.on('end', () =>
                resolve({ status: res.statusCode ?? 0, position: res.headers['x-position'] as string | undefined }),
              );
            },
          );
          req.on('error', () => resolve({ status: 0, position: undefined }));
          req.end(payload);
        });

      let n = 0;
      let tagsCreated = 0;
      const keywords = ['病院', 'クリニック', '内科', '整形', '眼科', 'こども'];
      /** One request of the mix; answers whether it succeeded and, for probes, the lag. */
      const oneRequest = async (minute: Minute) => {
        const i = n++;
        const tenant = tenants[i % tenants.length]!;
        const institution = institutions[(i * 7) % institutions.length]!;
        const kind = i % 10;
        const t0 = performance.now();
        let ok = true;
        let status = 0;
        const names = [
          'tag create',
          'tag create',
          'tag create',
          'memo',
          'memo',
          'search',
          'search',
          'search',
          'summary',
          'tag list',
        ];
        let probe: string | undefined;
        if (kind < 3) {
          const r = await call('POST', '/api/tags', tenant.command, { name: `soak-${i}` });
          status = r.status;
          ok = status === 201;
          if (ok && ++tagsCreated % LAG_PROBE_EVERY === 0) probe = r.position;
        } else if (kind < 5) {
          const r = await call('PUT', `/api/medical_institutions/${institution}/memo`, tenant.command, {
            content: `訪問メモ ${i}: 院長と面談、紹介状の様式を確認。`,
          });
          status = r.status;
          ok = status === 200;
        } else if (kind < 8) {
          const r = await call('POST', '/api/medical_institutions/search_results?page=1&per_page=20', tenant.query, {
            keyword: keywords[i % keywords.length],
          });
          status = r.status;
          ok = status === 200;
        } else if (kind < 9) {
          const r = await call('GET', `/api/medical_institutions/${institution}/summary`, tenant.query);
          status = r.status;
          ok = status === 200;
        } else {
          const r = await call('GET', '/api/tags?page=1&per_page=20', tenant.query);
          status = r.status;
          ok = status === 200;
        }
        minute.latencies.push(performance.now() - t0);
        minute.requests++;
        if (!ok) fail(minute, `${names[kind]} ${status}`);
        if (probe) {
          const p0 = performance.now();
          const r = await call('GET', '/api/tags?page=1&per_page=20', tenant.query, undefined, {
            'x-min-position': probe,
          });
          minute.lags.push(performance.now() - p0);
          if (r.status !== 200) fail(minute, `tag list after write ${r.status}`);
        }
      };

      const fail = (minute: Minute, what: string) => {
        minute.errors++;
        minute.failures.set(what, (minute.failures.get(what) ?? 0) + 1);
      };

      /** Open loop at RATE_PER_S for one minute; waits for the minute's requests to finish. */
      const runMinute = async (): Promise<Minute> => {
        const minute: Minute = { requests: 0, errors: 0, failures: new Map(), latencies: [], lags: [] };
        const interval = 1000 / RATE_PER_S;
        const t0 = performance.now();
        const pending: Promise<void>[] = [];
        for (let k = 0; k < RATE_PER_S * 60; k++) {
          const wait = t0 + k * interval - performance.now();
          if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
          pending.push(oneRequest(minute));
        }
        await Promise.all(pending);
        return minute;
      };

      ctx.log('soak: one minute of warm-up (not recorded)');
      await runMinute();
      const samples: { minute: Minute; rss: number; heap: number }[] = [];
      for (let m = 1; m <= minutes; m++) {
        const minute = await runMinute();
        const mem = process.memoryUsage();
        samples.push({ minute, rss: mem.rss, heap: mem.heapUsed });
        ctx.log(
          `soak: minute ${m}: ${minute.requests} requests, ${minute.errors} errors, p99 ${round(
            percentile(
              minute.latencies.sort((a, b) => a - b),
              99,
            ),
          )} ms, lag p99 ${round(
            percentile(
              minute.lags.sort((a, b) => a - b),
              99,
            ),
          )} ms, rss ${round(mem.rss / 2 ** 20)} MiB, heap ${round(mem.heapUsed / 2 ** 20)} MiB${
            minute.errors ? ` (failures: ${[...minute.failures].map(([k, v]) => `${k} ×${v}`).join(', ')})` : ''
          }`,
        );
      }

      const first = samples[0]!;
      const figures: BenchFigure[] = [];
      samples.forEach((s, index) => {
        const label = `minute ${index + 1}`;
        const p99 = percentile(s.minute.latencies, 99);
        const lag = percentile(s.minute.lags, 99);
        const base = (name: string, value: number, unit: string) =>
          index === 0 ? {} : { baseline: { name: `minute 1 ${name}`, value, unit } };
        figures.push(
          {
            name: `${label}: requests / errors`,
            value: s.minute.errors,
            unit: `errors of ${s.minute.requests}`,
            goal: '0',
            met: s.minute.errors === 0,
          },
          {
            name: `${label}: latency p99`,
            value: round(p99),
            unit: 'ms',
            ...base('p99', round(percentile(first.minute.latencies, 99)), 'ms'),
            ...(index === 0 ? {} : { ratio: round(p99 / percentile(first.minute.latencies, 99), 2) }),
          },
          {
            name: `${label}: read-your-writes lag p99`,
            value: round(lag),
            unit: 'ms',
            ...base('lag p99', round(percentile(first.minute.lags, 99)), 'ms'),
            ...(index === 0 ? {} : { ratio: round(lag / percentile(first.minute.lags, 99), 2) }),
          },
          {
            name: `${label}: RSS`,
            value: round(s.rss / 2 ** 20),
            unit: 'MiB',
            ...base('RSS', round(first.rss / 2 ** 20), 'MiB'),
            ...(index === 0 ? {} : { ratio: round(s.rss / first.rss, 2) }),
          },
          {
            name: `${label}: V8 heap used`,
            value: round(s.heap / 2 ** 20),
            unit: 'MiB',
            ...base('heap', round(first.heap / 2 ** 20), 'MiB'),
            ...(index === 0 ? {} : { ratio: round(s.heap / first.heap, 2) }),
          },
        );
      });
      const last = samples[samples.length - 1]!;
      const errors = samples.reduce((sum, s) => sum + s.minute.errors, 0);
      figures.push(
        {
          name: 'errors over the whole run',
          value: errors,
          unit: 'requests',
          goal: '0',
          met: errors === 0,
        },
        {
          name: 'RSS growth, last minute against the first',
          value: round(last.rss / 2 ** 20),
          unit: 'MiB',
          baseline: { name: 'minute 1 RSS', value: round(first.rss / 2 ** 20), unit: 'MiB' },
          ratio: round(last.rss / first.rss, 2),
          goal: 'flat after warm-up (≤ 1.15×)',
          met: last.rss / first.rss <= 1.15,
        },
        {
          name: 'machine load average (1 min) at start',
          value: round(load, 2),
          unit: 'runnable',
          goal: `≤ ${os.cpus().length} for figures that mean anything`,
        },
      );
      return figures;
    } finally {
      agent.destroy();
      await system.stop();
      await pg?.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  },
};

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

await runIfMain(bench, import.meta.url);
