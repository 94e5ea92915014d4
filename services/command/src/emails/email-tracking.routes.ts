import path from 'node:path';
import type { FastifyInstance, FastifyReply } from 'fastify';
import {
  emailDeliveryAggregate,
  emailTrackingEventId,
  emailUnsubscribedEventId,
  emailUnsubscribesAggregate,
} from '@renkei/domain';
import { newEventMetadata, streamId, type EventStore } from '@renkei/event-store';
import { emailTrackingKey, verifyTracking, type TrackingClaims } from '@renkei/mail';
import { createTrackingHitBatcher } from './tracking-hits.ts';
import { openTrackingJournal } from './tracking-journal.ts';

export interface EmailTrackingDeps {
  store: EventStore;
  /** The key of the tokens; default RENKEI_EMAIL_TRACKING_SECRET or the key kept in RENKEI_DATA_DIR. */
  trackingKey?: Buffer;
  /**
   * Where answered hits are written down until stored (default RENKEI_DATA_DIR/email-tracking-hits);
   * null for none (a killed process then loses the hits it had not stored).
   */
  journalDir?: string | null;
}

/** Hits this soon after sending are link scanners and preview bots, not readers. */
const machineGraceSeconds = 10;

// The smallest transparent GIF (1×1).
const pixel = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');

const page = (reply: FastifyReply, status: number, title: string, body: string) =>
  reply
    .code(status)
    .header('cache-control', 'no-store')
    .type('text/html; charset=utf-8')
    .send(
      `<!doctype html><html lang="ja"><meta charset="utf-8"><meta name="viewport" content="width=device-width">` +
        `<title>${title}</title><body style="font-family:sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem">` +
        `<h1 style="font-size:1.25rem">${title}</h1>${body}</body></html>`,
    );

const notFound = (reply: FastifyReply) =>
  page(reply, 404, 'ページが見つかりません', '<p>リンクが正しくないか、有効期限が切れています。</p>');

/**
 * The public paths of campaign mails (no sign-in; routed by the gateway under `/t/`): the open
 * pixel `/t/o/<token>`, the click redirect `/t/c/<token>` and the unsubscribe page `/t/u/<token>`
 * (GET shows a button, POST unsubscribes: RFC 8058 one-click posts there, and link scanners only
 * GET). Tokens are HMAC-signed claims (libs/mail tracking.ts): a forged or altered token does
 * nothing, and a click only leads to the URL signed into it, so there is no open redirect. Each hit
 * is an event with an id derived from what it counts, so repeats add nothing.
 */
export function registerEmailTrackingRoutes(app: FastifyInstance, deps: EmailTrackingDeps): void {
  let key = deps.trackingKey ?? null;
  const claimsOf = (token: string): TrackingClaims | null => {
    key ??= emailTrackingKey(
      path.resolve(process.env.RENKEI_DATA_DIR ?? '.data'),
      process.env.RENKEI_EMAIL_TRACKING_SECRET,
    );
    return verifyTracking(key, token);
  };
  const byReader = (claims: TrackingClaims, method: string) =>
    method === 'GET' && Math.floor(Date.now() / 1000) - (claims.s ?? 0) >= machineGraceSeconds;
  // Hits are stored after the answer, a few tens of milliseconds' worth in one append: the reader
  // waits for the database only when the batcher holds its maximum (back-pressure, nothing dropped).
  // Each hit is written to a local journal before its answer, so a kill -9 loses none: the next
  // start stores what was left (never doubles one: ids). tracking-hits.ts, tracking-journal.ts.
  const journalDir =
    deps.journalDir === undefined
      ? path.join(process.env.RENKEI_DATA_DIR ?? path.resolve('.data'), 'email-tracking-hits')
      : deps.journalDir;
  const hits = createTrackingHitBatcher({
    store: deps.store,
    logger: app.log,
    ...(journalDir ? { journal: openTrackingJournal(journalDir) } : {}),
  });
  app.addHook('onClose', () => hits.close());
  const record = (
    claims: TrackingClaims,
    what: string,
    type: string,
    data: () => object,
  ): Promise<void> | undefined => {
    const id = emailTrackingEventId(claims.e, claims.r, what);
    // Most hits repeat one already counted: nothing more is made for them (dates, metadata, ids).
    if (hits.has(id)) return undefined;
    return hits.add(streamId(emailDeliveryAggregate, claims.e), {
      id,
      type,
      data: { email_id: claims.e, email_address: claims.r, ...data() },
      metadata: newEventMetadata(claims.t),
    });
  };
  const config = { config: { rateLimit: false } };
  // A wildcard, not a `:token` parameter: tokens are longer than the router's parameter limit.
  const tokenOf = (params: unknown) => (params as { '*': string })['*'];

  app.route({
    method: ['GET', 'HEAD'],
    url: '/t/o/*',
    ...config,
    handler: async (request, reply) => {
      const claims = claimsOf(tokenOf(request.params));
      if (claims && !claims.u && byReader(claims, request.method))
        await record(claims, 'open', 'EmailOpened', () => ({ opened_at: new Date().toISOString() }));
      // The same answer whatever the token: the pixel reveals nothing. It is loaded from the reader's
      // mail client, another origin (a webmail page, Apple Mail's message view): helmet's
      // `same-origin` resource policy would have the browser block it and the open go uncounted.
      return reply
        .header('cache-control', 'no-store')
        .header('cross-origin-resource-policy', 'cross-origin')
        .type('image/gif')
        .send(pixel);
    },
  });

  app.route({
    method: ['GET', 'HEAD'],
    url: '/t/c/*',
    ...config,
    handler: async (request, reply) => {
      const claims = claimsOf(tokenOf(request.params));
      if (!claims?.u) return notFound(reply);
      if (byReader(claims, request.method))
        await record(claims, `click\u0000${claims.u}`, 'EmailLinkClicked', () => ({
          url: claims.u,
          clicked_at: new Date().toISOString(),
        }));
      return reply.header('cache-control', 'no-store').redirect(claims.u, 302);
    },
  });

  app.get('/t/u/*', config, async (request, reply) => {
    const token = tokenOf(request.params);
    const claims = claimsOf(token);
    if (!claims || claims.u) return notFound(reply);
    return page(
      reply,
      200,
      'メール配信の停止',
      `<p>今後、このアドレスへのご案内メールの配信を停止します。</p>` +
        `<form method="post" action="/t/u/${encodeURIComponent(token)}"><button type="submit">配信を停止する</button></form>`,
    );
  });

  // RFC 8058's one-click POST is a form body (`List-Unsubscribe=One-Click`): read, never needed.
  void app.register(async (child) => {
    child.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'string', bodyLimit: 1024 },
      (_request, body, done) => done(null, body),
    );
    child.post('/t/u/*', config, async (request, reply) => {
      const claims = claimsOf(tokenOf(request.params));
      if (!claims || claims.u) return notFound(reply);
      await deps.store.append(
        streamId(emailUnsubscribesAggregate, claims.t),
        [
          {
            id: emailUnsubscribedEventId(claims.t, claims.r),
            type: 'EmailUnsubscribed',
            data: { email_address: claims.r, email_id: claims.e },
            metadata: newEventMetadata(claims.t),
          },
        ],
        { expectedRevision: 'any' },
      );
      return page(reply, 200, '配信を停止しました', '<p>今後、このアドレスへのご案内メールはお送りしません。</p>');
    });
  });
}
