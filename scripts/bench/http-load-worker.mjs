// A closed-loop HTTP load generator on its own thread, so the service under test has its event loop
// to itself (in-process clients took a third of the server's thread). Plain JS: workers start
// without the TypeScript loader.
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import { parentPort, workerData } from 'node:worker_threads';

const { baseUrl, path, headers, concurrency, durationMs } = workerData;
const url = new URL(baseUrl);
const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });

function post(body) {
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        agent,
        host: url.hostname,
        port: url.port,
        method: 'POST',
        path,
        headers: { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) },
      },
      (res) => {
        res.on('data', () => {});
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

const latencies = [];
let failures = 0;
const started = performance.now();
const deadline = started + durationMs;
await Promise.all(
  Array.from({ length: concurrency }, async (_, w) => {
    while (performance.now() < deadline) {
      const t0 = performance.now();
      const status = await post({ name: `t-${w}-${randomUUID()}` });
      latencies.push(performance.now() - t0);
      if (status !== 201) failures++;
    }
  }),
);
const elapsedMs = performance.now() - started;
agent.destroy();
parentPort.postMessage({ latencies, failures, elapsedMs });
