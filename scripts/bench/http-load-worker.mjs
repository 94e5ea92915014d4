// A closed-loop HTTP/1.1 load generator on its own thread, in the manner of wrk: one keep-alive
// socket per virtual user, each request written with a single write and each response read by its
// status line and Content-Length, so the generator costs the two cores as little as it can and the
// service under test gets the rest. (Node's http client cost ~110 µs of CPU per request here, a
// third of what the service itself spent.) Plain JS: workers start without the TypeScript loader.
import net from 'node:net';
import { randomUUID } from 'node:crypto';
import { parentPort, workerData } from 'node:worker_threads';
import { responseReader } from './http1-responses.mjs';

const { baseUrl, path, headers, concurrency, durationMs } = workerData;
const url = new URL(baseUrl);
const fixedHeaders = Object.entries({ host: url.host, ...headers, 'content-type': 'application/json' })
  .map(([name, value]) => `${name}: ${value}\r\n`)
  .join('');

function request(body) {
  const payload = JSON.stringify(body);
  return `POST ${path} HTTP/1.1\r\n${fixedHeaders}content-length: ${Buffer.byteLength(payload)}\r\n\r\n${payload}`;
}

/** One virtual user: sends, waits for the whole response, records, sends again until the deadline. */
function user(w, deadline, latencies, counts) {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: url.hostname, port: Number(url.port), noDelay: true });
    let sentAt = 0;
    const send = () => {
      if (performance.now() >= deadline) {
        socket.end();
        resolve();
        return;
      }
      sentAt = performance.now();
      socket.write(request({ name: `t-${w}-${randomUUID()}` }));
    };
    socket.on('connect', send);
    socket.on('error', reject);
    socket.on(
      'data',
      responseReader((head) => {
        latencies.push(performance.now() - sentAt);
        if (head.startsWith('HTTP/1.1 201')) counts.ok++;
        else counts.failed++;
        send();
      }),
    );
  });
}

const latencies = [];
const counts = { ok: 0, failed: 0 };
const started = performance.now();
const deadline = started + durationMs;
await Promise.all(Array.from({ length: concurrency }, (_, w) => user(w, deadline, latencies, counts)));
const elapsedMs = performance.now() - started;
parentPort.postMessage({ latencies, failures: counts.failed, elapsedMs });
