import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { Worker } from 'node:worker_threads';
import { emailAddressKey, emailDeliveryEventId } from '../../libs/domain/src/index.ts';
import {
  createPostgresEventStore,
  newEventMetadata,
  readStreamOrEmpty,
  streamId,
} from '../../libs/event-store/src/index.ts';
import {
  createMailTransport,
  emailTrackingKey,
  prepareCampaignMail,
  signTracking,
  startMailCatcher,
  verpAddress,
} from '../../libs/mail/src/index.ts';
import { buildTestCommandApp } from '../../services/command/src/testing.ts';
import { buildGatewayApp, ensureLocalCertificate } from '../../services/gateway/src/index.ts';
import { createEmailDeliveryReactor } from '../../services/worker/src/reactors/email-delivery.reactor.ts';
import { percentile, round } from './http-bench-support.ts';
import type { BenchDefinition, BenchFigure } from './bench-context.ts';

const RECIPIENTS = Number(process.env.BENCH_EMAIL_RECIPIENTS ?? 10_000);
const ROUNDS = Number(process.env.BENCH_EMAIL_ROUNDS ?? 3);
const WARM_UP = 300;
const RATE = 500;
const TRACKING_MS = 10_000;
// The pooled connections of both sides: the reactor's default transport has as many as its commit group.
// `campaign`, `tracking` or both (default): one half alone for a quicker look.
const PHASES = (process.env.BENCH_EMAIL_PHASES ?? 'campaign,tracking').split(',');
const COMMIT_GROUP = Number(process.env.RENKEI_EMAIL_COMMIT_GROUP) || 10;
const CONCURRENCY = Number(process.env.BENCH_EMAIL_CONNECTIONS ?? Math.max(5, 2 * COMMIT_GROUP));
const origin = 'https://renkei.example.jp';
const html =
  '<h2>新任医師のご案内</h2><p>いつもお世話になっております。地域医療連携室です。</p>' +
  '<p>4月より循環器内科に新しい医師が着任しました。<a href="https://example.jp/doctors">医師紹介</a>をご覧ください。</p>' +
  '<ul><li>外来：月・水・金</li><li>紹介予約：<a href="tel:0542000000">054-200-0000</a></li></ul>';

/**
 * Open loop at `rate` requests per second for `durationMs` (tracking-load-worker.mjs, on its own
 * thread): the generator's timers and parsing do not wait for the servers' event loop, nor the
 * servers for the generator.
 */
async function openLoop(port: number, paths: (i: number) => string, rate: number, durationMs: number, secure = false) {
  const total = Math.round((rate * durationMs) / 1000);
  const { latencies, failures, elapsedMs } = await new Promise<{
    latencies: number[];
    failures: number;
    elapsedMs: number;
  }>((resolve, reject) => {
    const worker = new Worker(new URL('./tracking-load-worker.mjs', import.meta.url), {
      workerData: {
        port,
        paths: Array.from({ length: total }, (_, i) => paths(i)),
        rate,
        durationMs,
        maxSockets: 64,
        secure,
      },
    });
    worker.once('message', resolve);
    worker.once('error', reject);
    worker.once('exit', (code) => {
      if (code !== 0) reject(new Error(`load worker exited with ${code}`));
    });
  });
  latencies.sort((a, b) => a - b);
  return {
    p99: percentile(latencies, 99),
    p50: percentile(latencies, 50),
    rate: (latencies.length / elapsedMs) * 1000,
    failures,
  };
}

export const bench: BenchDefinition = {
  name: 'emails',
  description:
    `(a) A campaign to ${RECIPIENTS.toLocaleString('en')} recipients through the local SMTP catcher by the worker's delivery queue (up to 20 mails under way; every mail made from the campaign's template, signed, claimed and sent; its end of data committed in groups of up to ${COMMIT_GROUP} (RENKEI_EMAIL_COMMIT_GROUP) per send, the group's outcomes stored in one append) against plain nodemailer sending the same messages over the same pooled transport (${CONCURRENCY} in flight) to the same catcher, each mail made from the campaign's template as the reactor makes it; ${WARM_UP}-recipient warm-up of both, then ${ROUNDS} rounds, each starting with the other side. ` +
    `(b) The tracking endpoints (open pixel and click redirect, each first hit written to the journal before its answer, then an event stored in batches of 25 ms) at ${RATE} requests/s open loop, against the same GIF and redirect from a bare node:http server in the same process; then the same through the gateway's public https path (TLS, the gateway's proxy hop to the command service, in one process as the embedded install runs them) against a bare node:https server answering the same bytes; the load generated on a thread of its own; alternating.`,
  async run(ctx) {
    const db = await ctx.openDatabase();
    const store = await createPostgresEventStore(db);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'renkei-bench-emails-'));
    const secret = `bench-${randomUUID()}`;
    process.env.RENKEI_EMAIL_TRACKING_SECRET = secret;
    const key = emailTrackingKey(dir, secret);
    const catcher = await startMailCatcher(dir, 0);
    const transport = createMailTransport({ catcherPort: catcher.port, pool: true, maxConnections: CONCURRENCY });
    const figures: BenchFigure[] = [];
    try {
      const tenantId = randomUUID();
      const addresses = Array.from({ length: RECIPIENTS }, (_, i) => `doctor${i}@clinic${i % 500}.example.jp`);
      const reactor = createEmailDeliveryReactor({
        publicOrigin: origin,
        dataDir: dir,
        ratePerMinute: 1e9,
        ...(process.env.BENCH_EMAIL_LANES ? { concurrency: Number(process.env.BENCH_EMAIL_LANES) } : {}),
        bounceAddress: 'bounces@renkei.example.jp',
        transport: () => transport,
      });
      async function renkeiCampaign(to = addresses): Promise<number> {
        const emailId = randomUUID();
        await store.append(
          streamId('email', emailId),
          [
            {
              type: 'EmailCreated',
              data: {
                email_id: emailId,
                title: '【ご案内】新任医師のお知らせ',
                sender_name: '静岡中央病院 地域医療連携室',
                sender_email: 'renkei@example.jp',
                main_content: html,
                attachment_id: null,
                doctor_ids: [],
                recipients: to.map((email_address, i) => ({
                  email_address,
                  name: `医師 ${i}`,
                  institution_code: null,
                  doctor_id: null,
                  medical_institution_id: null,
                })),
                invalid_recipients: [],
              },
              metadata: newEventMetadata(tenantId),
            },
            {
              type: 'EmailSent',
              data: { email_id: emailId, sent_at: new Date().toISOString() },
              metadata: newEventMetadata(tenantId),
            },
          ],
          { expectedRevision: 'no_stream' },
        );
        const sent = (await readStreamOrEmpty(store, streamId('email', emailId), tenantId)).filter(
          (e) => e.type === 'EmailSent',
        );
        const started = performance.now();
        // Enqueued by the reactor, delivered by the queue (as the worker's background loop does).
        await reactor.handle(sent, { db, store });
        await reactor.drain({ db, store });
        return (to.length / (performance.now() - started)) * 1000;
      }

      /**
       * The same messages (tokens, VERP path, Message-ID), made the same way (the campaign's template
       * once, each recipient's URLs and headers per mail), sent with nothing claimed or recorded.
       */
      async function plainNodemailer(to = addresses): Promise<number> {
        const emailId = randomUUID();
        let next = 0;
        const started = performance.now();
        const template = prepareCampaignMail({
          from: { name: '静岡中央病院 地域医療連携室', address: 'renkei@example.jp' },
          subject: '【ご案内】新任医師のお知らせ',
          html,
          trackClicks: true,
          trackOpens: true,
        });
        await Promise.all(
          Array.from({ length: CONCURRENCY }, async () => {
            while (next < to.length) {
              const i = next++;
              const address = to[i]!;
              const claims = { t: tenantId, e: emailId, r: emailAddressKey(address), s: Math.floor(Date.now() / 1000) };
              const token = (u?: string) => signTracking(key, u ? { ...claims, u } : claims);
              await transport.sendMail(
                template.render({
                  to: { name: `医師 ${i}`, address },
                  unsubscribeUrl: `${origin}/t/u/${token()}`,
                  openUrl: `${origin}/t/o/${token()}`,
                  clickUrl: (href) => `${origin}/t/c/${token(href)}`,
                  messageId: `<${emailDeliveryEventId(emailId, 'send', address)}@renkei>`,
                  returnPath: verpAddress(key, 'bounces@renkei.example.jp', { emailId, recipient: i }),
                }),
              );
            }
          }),
        );
        return (to.length / (performance.now() - started)) * 1000;
      }

      const loads: number[] = [];
      if (PHASES.includes('campaign')) {
        // Warm-up: connections, JIT, the first appends.
        ctx.log('warm-up');
        await transport.sendMail({ from: 'a@example.jp', to: 'b@example.jp', subject: 'warm-up', text: '.' });
        // Both paths once on a small list, not measured: the first round otherwise measured JIT and pool
        // start-up on the reactor's side (its first round ran at half the speed of the next ones).
        await renkeiCampaign(addresses.slice(0, WARM_UP));
        await plainNodemailer(addresses.slice(0, WARM_UP));
        const renkei: number[] = [];
        const plain: number[] = [];
        const sides: { label: string; into: number[]; run: () => Promise<number> }[] = [
          { label: 'reactor', into: renkei, run: () => renkeiCampaign() },
          { label: 'plain nodemailer', into: plain, run: () => plainNodemailer() },
        ];
        for (let round_ = 0; round_ < ROUNDS; round_++) {
          // Each round starts with the other side: neither always runs first in a round.
          for (let k = 0; k < sides.length; k++) {
            const side = sides[(round_ + k) % sides.length]!;
            side.into.push(await side.run());
            ctx.log(`round ${round_ + 1}: ${side.label} ${round(side.into.at(-1)!)} mails/s`);
          }
          loads.push(os.loadavg()[0]!);
        }
        const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
        const campaignRatio = mean(renkei) / mean(plain);
        figures.push({
          metric: `(a) campaign to ${RECIPIENTS} recipients, delivery reactor`,
          value: round(mean(renkei)),
          unit: 'mails/s',
          baseline: {
            label: 'plain nodemailer, same messages and catcher',
            value: round(mean(plain)),
            unit: 'mails/s',
          },
          ratio: round(campaignRatio, 2),
          goal: '≥ 0.7× plain nodemailer',
          met: campaignRatio >= 0.7,
        });
      }

      if (PHASES.includes('tracking')) {
        // The campaign phase left its caught mails on disk (hundreds of MB not yet written back): the
        // disk's writeback of them stalls the journal's writes in the first tracking rounds (a write
        // that extends a file waits for the file system's journal). They go first, so the rounds
        // measure the tracking path rather than that phase's aftermath (docs/benchmarks.md, 2026-11-25).
        for (const name of fs.readdirSync(path.join(dir, 'mail')))
          if (name.endsWith('.eml')) fs.rmSync(path.join(dir, 'mail', name), { force: true });
        // (b) Tracking: tokens of many recipients sent 60 s ago (past the machine-traffic grace).
        // With the journal of answered hits, as the service runs: its write is on the answer's path.
        const { app } = await buildTestCommandApp(db, store, {
          emailTrackingJournalDir: path.join(dir, 'email-tracking-hits'),
        });
        await app.listen({ host: '127.0.0.1', port: 0 });
        const port = (app.server.address() as AddressInfo).port;
        const gif = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');
        // The floor: the same answers from node:http with no token check and nothing recorded.
        const answer = (req: http.IncomingMessage, res: http.ServerResponse) => {
          if (req.url?.startsWith('/t/c/'))
            res
              .writeHead(302, {
                location: 'https://example.jp/doctors',
                'cache-control': 'no-store',
                'content-length': 0,
              })
              .end();
          else
            res
              .writeHead(200, {
                'content-type': 'image/gif',
                'cache-control': 'no-store',
                'content-length': gif.length,
              })
              .end(gif);
        };
        const bare = http.createServer(answer);
        // Fastify's keep-alive time-out (node:http closes idle sockets after 5 s, Fastify after 72 s).
        bare.keepAliveTimeout = 72_000;
        await new Promise<void>((resolve) => bare.listen(0, '127.0.0.1', resolve));
        const barePort = (bare.address() as AddressInfo).port;
        // The public path: the gateway (https) in front of the command service, in this process as the
        // embedded install runs them; its floor is node:https answering the same bytes (TLS, no hop).
        const certificate = ensureLocalCertificate(path.join(dir, 'tls'));
        fs.mkdirSync(path.join(dir, 'web'), { recursive: true });
        fs.writeFileSync(path.join(dir, 'web', 'index.html'), '<!doctype html><title>bench</title>');
        const commandUrl = `http://127.0.0.1:${port}`;
        const gateway = await buildGatewayApp({
          tls: certificate,
          upstreams: { identity: commandUrl, command: commandUrl, query: commandUrl },
          webDist: path.join(dir, 'web'),
        });
        await gateway.listen({ host: '127.0.0.1', port: 0 });
        const gatewayPort = (gateway.server.address() as AddressInfo).port;
        const bareTls = https.createServer({ key: certificate.key, cert: certificate.cert }, answer);
        bareTls.keepAliveTimeout = 72_000;
        await new Promise<void>((resolve) => bareTls.listen(0, '127.0.0.1', resolve));
        const bareTlsPort = (bareTls.address() as AddressInfo).port;

        const trackedEmail = randomUUID();
        const sentAt = Math.floor(Date.now() / 1000) - 60;
        // Every measured request of the service is a reader's first hit (the costly case: an event
        // made and written to the journal): as many readers as the rounds and warm-ups ask.
        const perRun = (ms: number) => (RATE * ms) / 2000;
        const readers = Math.max(RECIPIENTS, 2 * ROUNDS * perRun(TRACKING_MS) + 2 * perRun(3_000));
        const tokens = Array.from({ length: readers }, (_, i) => {
          const claims = { t: tenantId, e: trackedEmail, r: `reader${i}@clinic${i % 500}.example.jp`, s: sentAt };
          return {
            open: `/t/o/${signTracking(key, claims)}`,
            click: `/t/c/${signTracking(key, { ...claims, u: 'https://example.jp/doctors' })}`,
          };
        });
        // Every other request a click; each reader's first open and first click write an event.
        const pathOf = (offset: number) => (i: number) => {
          const t = tokens[(offset + Math.floor(i / 2)) % tokens.length]!;
          return i % 2 === 0 ? t.open : t.click;
        };
        let offset = 0;
        const fresh = (ms: number) => {
          const at = offset;
          offset += perRun(ms);
          return pathOf(at);
        };
        type Round = { p99: number; p50: number; rate: number; failures: number };
        const targets: { key: string; label: string; port: number; secure: boolean; recorded: boolean }[] = [
          { key: 'direct', label: 'tracking (command service)', port, secure: false, recorded: true },
          { key: 'bare', label: 'bare node:http', port: barePort, secure: false, recorded: false },
          {
            key: 'gateway',
            label: 'tracking through the gateway (https)',
            port: gatewayPort,
            secure: true,
            recorded: true,
          },
          { key: 'bareTls', label: 'bare node:https', port: bareTlsPort, secure: true, recorded: false },
        ];
        const rounds = new Map<string, Round[]>(targets.map((t) => [t.key, []]));
        // Warm-up of every server (JIT, sockets, TLS sessions, the store's connections), not measured:
        // without it the first round measured the process starting up.
        ctx.log('tracking warm-up');
        for (const t of targets) await openLoop(t.port, t.recorded ? fresh(3_000) : pathOf(0), RATE, 3_000, t.secure);
        for (let round_ = 0; round_ < ROUNDS; round_++) {
          for (const t of targets) {
            const r = await openLoop(t.port, t.recorded ? fresh(TRACKING_MS) : pathOf(0), RATE, TRACKING_MS, t.secure);
            rounds.get(t.key)!.push(r);
            ctx.log(
              `round ${round_ + 1}: ${t.label} p50 ${round(r.p50, 2)} ms p99 ${round(r.p99, 2)} ms at ${round(r.rate)}/s, ${r.failures} failed`,
            );
          }
          loads.push(os.loadavg()[0]!);
        }
        const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
        for (const [measured, floor, what] of [
          ['direct', 'bare', 'command service'],
          ['gateway', 'bareTls', 'through the gateway (https)'],
        ] as const) {
          const m = rounds.get(measured)!;
          const b = rounds.get(floor)!;
          const floorLabel = floor === 'bare' ? 'bare node:http, same answers' : 'bare node:https, same answers';
          const worst = Math.max(...m.map((p) => p.p99));
          const bareWorst = Math.max(...b.map((p) => p.p99));
          figures.push({
            metric: `(b) tracking open+click p99 at ${RATE} req/s, ${what} (worst round)`,
            value: round(worst, 2),
            unit: 'ms',
            baseline: { label: floorLabel, value: round(bareWorst, 2), unit: 'ms' },
            ratio: round(worst / bareWorst, 2),
            goal: '≤ 20 ms',
            met: worst <= 20 && m.every((p) => p.failures === 0),
          });
          const mid = median(m.map((p) => p.p99));
          const bareMid = median(b.map((p) => p.p99));
          figures.push({
            metric: `(b) tracking open+click p99 at ${RATE} req/s, ${what} (median round)`,
            value: round(mid, 2),
            unit: 'ms',
            baseline: { label: floorLabel, value: round(bareMid, 2), unit: 'ms' },
            ratio: round(mid / bareMid, 2),
          });
        }
        await gateway.close();
        await app.close();
        await new Promise((resolve) => bare.close(resolve));
        await new Promise((resolve) => bareTls.close(resolve));
      }
      figures.push({
        metric: 'machine load average (1 min) during the rounds, max',
        value: round(Math.max(...loads), 1),
        unit: '',
        baseline: { label: 'min', value: round(Math.min(...loads), 1), unit: '' },
      });
    } finally {
      transport.close();
      await catcher.close();
      await store.close();
      await db.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
    return figures;
  },
};
