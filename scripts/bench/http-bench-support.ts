import http from 'node:http';
import { Worker } from 'node:worker_threads';

export interface HttpResult {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** Keep-alive HTTP/1.1 calls with as little client overhead as possible (no fetch machinery). */
export function httpClient(baseUrl: string, sockets: number) {
  const url = new URL(baseUrl);
  const agent = new http.Agent({ keepAlive: true, maxSockets: sockets });
  return {
    request(method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<HttpResult> {
      const payload = body === undefined ? undefined : JSON.stringify(body);
      return new Promise((resolve, reject) => {
        const req = http.request(
          {
            agent,
            host: url.hostname,
            port: url.port,
            method,
            path,
            headers: {
              ...headers,
              ...(payload ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } : {}),
            },
          },
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (c: Buffer) => chunks.push(c));
            res.on('end', () =>
              resolve({
                status: res.statusCode ?? 0,
                headers: res.headers,
                body: Buffer.concat(chunks).toString('utf8'),
              }),
            );
            res.on('error', reject);
          },
        );
        req.on('error', reject);
        // One write for headers and body: a separate write costs a second syscall per request.
        req.end(payload);
      });
    },
    close() {
      agent.destroy();
    },
  };
}

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index]!;
}

export const round = (n: number, digits = 1): number => Math.round(n * 10 ** digits) / 10 ** digits;

/** Runs `workers` loops until `durationMs` has passed; each loop awaits `task` back to back. */
export async function closedLoop(
  workers: number,
  durationMs: number,
  task: (worker: number) => Promise<void>,
): Promise<number> {
  const started = performance.now();
  const deadline = started + durationMs;
  await Promise.all(
    Array.from({ length: workers }, async (_, w) => {
      while (performance.now() < deadline) await task(w);
    }),
  );
  return performance.now() - started;
}

/**
 * Runs the closed-loop POST generator of http-load-worker.mjs on its own thread for `durationMs` and
 * returns every latency (ms), the non-201 count and the elapsed time.
 */
export function runLoadWorker(options: {
  baseUrl: string;
  path: string;
  headers: Record<string, string>;
  concurrency: number;
  durationMs: number;
}): Promise<{ latencies: number[]; failures: number; elapsedMs: number }> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL('./http-load-worker.mjs', import.meta.url), { workerData: options });
    worker.once('message', resolve);
    worker.once('error', reject);
    worker.once('exit', (code) => {
      if (code !== 0) reject(new Error(`load worker exited with ${code}`));
    });
  });
}
