// An open-loop HTTP/1.1 GET generator (plain or TLS) on its own thread (as http-load-worker.mjs): requests leave at
// a fixed rate whatever the answers do, on keep-alive sockets (a new one when all are busy, up to
// `maxSockets`, else the request waits for the next free one), each written with a single write and
// each response read by its status line and Content-Length. Each latency is measured from the
// request's scheduled time, so a stall of the server is not hidden by the requests it delayed.
// Running apart from the servers' event loop, the generator's timers are not delayed by their work.
import net from 'node:net';
import tls from 'node:tls';
import { parentPort, workerData } from 'node:worker_threads';
import { responseReader } from './http1-responses.mjs';

// `secure`: TLS sockets (the gateway's https origin; its certificate is the bench's own, not checked).
const { port, paths, rate, durationMs, maxSockets, secure } = workerData;
const total = Math.round((rate * durationMs) / 1000);
const latencies = [];
let failures = 0;
let done = 0;
const all = [];
const free = [];
const backlog = [];

function open() {
  const socket = secure
    ? tls.connect({ host: '127.0.0.1', port, noDelay: true, servername: 'localhost', rejectUnauthorized: false })
    : net.connect({ host: '127.0.0.1', port, noDelay: true });
  all.push(socket);
  socket.on(secure ? 'secureConnect' : 'connect', () => release(socket));
  // A server may close a keep-alive socket (its idle time-out): a request on it goes again on
  // another, as an HTTP client retries an idempotent request; its latency still counts from its due time.
  socket.on('error', () => undefined);
  socket.on('close', () => {
    all.splice(all.indexOf(socket), 1);
    const idle = free.indexOf(socket);
    if (idle >= 0) free.splice(idle, 1);
    const current = socket.current;
    socket.current = null;
    if (current && !reported) issue(current);
  });
  socket.on(
    'data',
    responseReader((head) => {
      const ok = head.startsWith('HTTP/1.1 200') || head.startsWith('HTTP/1.1 302');
      const current = socket.current;
      socket.current = null;
      if (current) finish(current, ok);
      release(socket);
    }),
  );
}

function finish(request, ok) {
  latencies.push(performance.now() - request.due);
  if (!ok) failures++;
  if (++done === total) report();
}

function write(socket, request) {
  socket.current = request;
  socket.write(`GET ${request.path} HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n`);
}

function release(socket) {
  const next = backlog.shift();
  if (next) write(socket, next);
  else free.push(socket);
}

function issue(request) {
  const socket = free.pop();
  if (socket) write(socket, request);
  else {
    backlog.push(request);
    if (all.length < maxSockets) open();
  }
}

let reported = false;
function report() {
  if (reported) return;
  reported = true;
  clearTimeout(guard);
  const elapsedMs = performance.now() - started;
  for (const socket of all) socket.destroy();
  parentPort.postMessage({ latencies, failures, elapsedMs });
}

const started = performance.now();
let next = 0;
function tick() {
  const now = performance.now();
  while (next < total && started + (next * 1000) / rate <= now) {
    issue({ path: paths[next], due: started + (next * 1000) / rate });
    next++;
  }
  if (next < total) setTimeout(tick, Math.max(0, started + (next * 1000) / rate - performance.now()));
}
// A server that never answers some request still gets a figure: those requests count as failures.
const guard = setTimeout(() => {
  failures += total - done;
  report();
}, durationMs + 30_000);
tick();
