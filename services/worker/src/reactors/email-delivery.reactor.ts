import fs from 'node:fs/promises';
import path from 'node:path';
import {
  emailAddressKey,
  emailAggregate,
  emailDeliveryAggregate,
  emailDeliveryEventId,
  emailTrackingEventId,
  emailUnsubscribesAggregate,
  parseEmailUnsubscribeEvent,
  parseEmailEvent,
  type EmailDraftSaved,
} from '@renkei/domain';
import { readStreamOrEmpty, streamId, type EventStore, type RecordedEvent } from '@renkei/event-store';
import {
  bounceMailboxDir,
  buildCampaignMail,
  createMailTransport,
  emailTrackingKey,
  parseBounce,
  readVerpAddress,
  signTracking,
  verpAddress,
  type MailTransport,
} from '@renkei/mail';
import { defineReactor, type Reactor, type ReactorContext } from '@renkei/projections';
import { sql } from 'kysely';

export interface EmailDeliveryOptions {
  /** The public https origin of the tracking and unsubscribe links (PUBLIC_ORIGIN). */
  publicOrigin?: string;
  /** Where the tracking key is kept when RENKEI_EMAIL_TRACKING_SECRET is not set (RENKEI_DATA_DIR). */
  dataDir?: string;
  /** Mails per minute at most (RENKEI_EMAIL_RATE_PER_MINUTE, default 600). */
  ratePerMinute?: number;
  /** The SMTP transport; default SMTP_URL or the local catcher. */
  transport?: () => MailTransport;
  /**
   * The bounce mailbox address (RENKEI_EMAIL_BOUNCE_ADDRESS): campaign mails go out with a VERP return
   * path on it. Without SMTP_URL (the local catcher) `bounces@localhost`; with SMTP_URL and no address,
   * mails go out without one and Renkei learns of no bounce.
   */
  bounceAddress?: string | null;
  /**
   * Recipients handled at once (default 10: twice the pooled transport's 5 connections, so a lane
   * storing its outcome leaves no connection idle). A crash may resend at most this many mails.
   */
  concurrency?: number;
  /** How often the bounce mailbox is read (default 5 s). */
  bouncePollMs?: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Spaces sends evenly: at most `perMinute` a minute, without bursts. */
function pacer(perMinute: number) {
  const interval = 60_000 / perMinute;
  let next = 0;
  return async () => {
    const now = Date.now();
    next = Math.max(next, now);
    const wait = next - now;
    next += interval;
    if (wait > 0) await sleep(wait);
  };
}

interface Job {
  tenantId: string;
  emailId: string;
  /** 'send' for the campaign, the test's id for a test send. */
  sendId: string;
  test: boolean;
  /** `index`: the position in the campaign's list (named by the VERP return path). */
  recipients: { address: string; name: string | null; index: number }[];
}

async function draftOf(store: EventStore, tenantId: string, emailId: string): Promise<EmailDraftSaved | null> {
  const events = await readStreamOrEmpty(store, streamId(emailAggregate, emailId), tenantId);
  let draft: EmailDraftSaved | null = null;
  for (const event of events.map(parseEmailEvent)) {
    if (event.type === 'EmailCreated' || event.type === 'EmailUpdated') draft = event.data;
    if (event.type === 'EmailDeleted') draft = null;
  }
  return draft;
}

async function unsubscribed(store: EventStore, tenantId: string): Promise<Set<string>> {
  const events = await readStreamOrEmpty(store, streamId(emailUnsubscribesAggregate, tenantId), tenantId);
  return new Set(events.map((e) => emailAddressKey(parseEmailUnsubscribeEvent(e).data.email_address)));
}

/**
 * Delivers campaigns and test sends mail by mail. Exactly one mail per recipient across crashes:
 * each recipient's outcome is an event whose id derives from the email, the send and the address,
 * so a repeated batch (the reactor is at-least-once) finds it in the delivery stream and skips the
 * recipient. The one window left: the SMTP server accepted a mail and the worker died before the
 * event was stored; that recipient (one at most per crash) gets the mail again, with the same
 * Message-ID (docs/decisions.md, "Email campaigns").
 */
export function createEmailDeliveryReactor(
  options: EmailDeliveryOptions = {},
): Reactor & { readBounces(ctx: ReactorContext): Promise<number> } {
  let transport: MailTransport | null = null;
  let key: Buffer | null = null;
  const publicOrigin = () =>
    (options.publicOrigin ?? process.env.PUBLIC_ORIGIN ?? 'https://localhost:3000').replace(/\/$/, '');
  const trackingKey = () =>
    (key ??= emailTrackingKey(
      options.dataDir ?? path.resolve(process.env.RENKEI_DATA_DIR ?? '.data'),
      process.env.RENKEI_EMAIL_TRACKING_SECRET,
    ));
  const bounceAddress = () =>
    options.bounceAddress !== undefined
      ? options.bounceAddress
      : process.env.RENKEI_EMAIL_BOUNCE_ADDRESS || (process.env.SMTP_URL ? null : 'bounces@localhost');
  const bounceDir = () => bounceMailboxDir(options.dataDir ?? path.resolve(process.env.RENKEI_DATA_DIR ?? '.data'));
  const concurrency = Math.max(1, options.concurrency ?? 10);
  const pace = pacer(options.ratePerMinute ?? (Number(process.env.RENKEI_EMAIL_RATE_PER_MINUTE) || 600));

  async function deliver(store: EventStore, job: Job, draft: EmailDraftSaved) {
    const deliveryStream = streamId(emailDeliveryAggregate, job.emailId);
    const done = new Set((await readStreamOrEmpty(store, deliveryStream, job.tenantId)).map((e) => e.id));
    const skip = job.test ? new Set<string>() : await unsubscribed(store, job.tenantId);
    const mailer = (transport ??= options.transport
      ? options.transport()
      : createMailTransport({
          smtpUrl: process.env.SMTP_URL,
          pool: true,
          fallbackPort: Number(process.env.SMTP_PORT ?? 2525),
        }));
    const origin = publicOrigin();
    const bounceReturn = bounceAddress();
    const metadata = {
      tenant_id: job.tenantId,
      account_id: null,
      correlation_id: job.emailId,
      causation_id: null,
      schema_version: 1,
    };
    const one = async (recipient: Job['recipients'][number]) => {
      const id = emailDeliveryEventId(job.emailId, job.sendId, recipient.address);
      if (done.has(id)) return;
      const address = emailAddressKey(recipient.address);
      if (skip.has(address)) {
        await store.append(
          deliveryStream,
          [
            {
              id,
              type: 'EmailRecipientSkipped',
              data: { email_id: job.emailId, email_address: recipient.address, reason: 'unsubscribed' },
              metadata,
            },
          ],
          { expectedRevision: 'any' },
        );
        return;
      }
      const claims = { t: job.tenantId, e: job.emailId, r: address, s: Math.floor(Date.now() / 1000) };
      const token = (u?: string) => signTracking(trackingKey(), u ? { ...claims, u } : claims);
      await pace();
      await mailer.sendMail(
        buildCampaignMail({
          from: { name: draft.sender_name, address: draft.sender_email },
          to: { name: recipient.name, address: recipient.address },
          subject: job.test ? `[テスト送信] ${draft.title}` : draft.title,
          html: draft.main_content,
          unsubscribeUrl: `${origin}/t/u/${token()}`,
          // A test send is never counted: no pixel, links left as they are.
          openUrl: job.test ? null : `${origin}/t/o/${token()}`,
          clickUrl: job.test ? null : (href) => `${origin}/t/c/${token(href)}`,
          messageId: `<${id}@renkei>`,
          // A test send's bounce is the tester's business: only campaign mails carry a VERP path.
          returnPath:
            job.test || !bounceReturn
              ? null
              : verpAddress(trackingKey(), bounceReturn, { emailId: job.emailId, recipient: recipient.index }),
        }),
      );
      await store.append(
        deliveryStream,
        [
          {
            id,
            type: 'EmailRecipientDelivered',
            data: {
              email_id: job.emailId,
              email_address: recipient.address,
              delivered_at: new Date().toISOString(),
              test: job.test,
            },
            metadata,
          },
        ],
        { expectedRevision: 'any' },
      );
    };
    // A few recipients at once (`concurrency` lanes over the pooled connections): each lane sends
    // and records one recipient at a time. After a failure no lane starts another mail, and
    // the error is raised once every lane has stopped, so a repeat of the batch never overlaps a
    // mail still on its way.
    let next = 0;
    let failure: { error: unknown } | null = null;
    const lane = async () => {
      while (!failure && next < job.recipients.length) {
        const recipient = job.recipients[next++]!;
        try {
          await one(recipient);
        } catch (error) {
          failure ??= { error };
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, job.recipients.length) }, lane));
    if (failure) throw (failure as { error: unknown }).error;
  }

  /**
   * One pass over the bounce mailbox: each bounce whose VERP address is genuine becomes an event of
   * the campaign's delivery stream (id from the email, the recipient and failure or delay, so a
   * bounce read twice counts once), then its file is removed. A file whose campaign is not known yet
   * (the read model behind) stays for the next pass; one that names no campaign of Renkei goes.
   */
  async function readBounces(ctx: ReactorContext): Promise<number> {
    const dir = bounceDir();
    let files: string[];
    try {
      files = (await fs.readdir(dir)).filter((f) => f.endsWith('.eml')).sort();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
      throw error;
    }
    let recorded = 0;
    for (const file of files) {
      const full = path.join(dir, file);
      let raw: Buffer;
      try {
        raw = await fs.readFile(full);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue; // another worker took it
        throw error;
      }
      const bounce = await parseBounce(raw);
      let keep = false;
      for (const address of bounce.deliveredTo) {
        const claims = readVerpAddress(trackingKey(), address);
        if (!claims) continue;
        const { rows } = await sql<{ tenant_id: string }>`
          SELECT tenant_id FROM rm.emails WHERE id = ${claims.emailId}`.execute(ctx.db.kysely);
        const tenantId = rows[0]?.tenant_id;
        const draft = tenantId ? await draftOf(ctx.store, tenantId, claims.emailId) : null;
        const recipient = draft?.recipients[claims.recipient];
        if (!tenantId || !recipient) {
          keep = true;
          continue;
        }
        await ctx.store.append(
          streamId(emailDeliveryAggregate, claims.emailId),
          [
            {
              id: emailTrackingEventId(claims.emailId, recipient.email_address, bounce.permanent ? 'bounce' : 'delay'),
              type: 'EmailRecipientBounced',
              data: {
                email_id: claims.emailId,
                email_address: recipient.email_address,
                bounced_at: new Date().toISOString(),
                status: bounce.status,
                reason: bounce.reason,
                permanent: bounce.permanent,
              },
              metadata: {
                tenant_id: tenantId,
                account_id: null,
                correlation_id: claims.emailId,
                causation_id: null,
                schema_version: 1,
              },
            },
          ],
          { expectedRevision: 'any' },
        );
        recorded++;
      }
      if (!keep) await fs.rm(full, { force: true });
    }
    return recorded;
  }

  const reactor = defineReactor({
    name: 'email_delivery',
    eventTypes: ['EmailSent', 'EmailTestSent'],
    // Mails are side effects: a worker meeting this reactor for the first time does not send history.
    startAt: 'head',
    batchSize: 1,
    async handle(events: RecordedEvent[], ctx) {
      for (const recorded of events) {
        const event = parseEmailEvent(recorded);
        const tenantId = recorded.metadata.tenant_id;
        if (event.type !== 'EmailSent' && event.type !== 'EmailTestSent') continue;
        const emailId = event.data.email_id;
        const draft = await draftOf(ctx.store, tenantId, emailId);
        if (!draft) continue;
        const job: Job =
          event.type === 'EmailSent'
            ? {
                tenantId,
                emailId,
                sendId: 'send',
                test: false,
                recipients: draft.recipients.map((r, index) => ({ address: r.email_address, name: r.name, index })),
              }
            : {
                tenantId,
                emailId,
                sendId: event.data.test_id,
                test: true,
                recipients: event.data.email_addresses.map((address, index) => ({ address, name: null, index })),
              };
        await deliver(ctx.store, job, draft);
      }
    },
    async background(ctx) {
      const every = options.bouncePollMs ?? 5_000;
      while (!ctx.signal.aborted) {
        try {
          await readBounces(ctx);
        } catch (error) {
          ctx.logger?.error({ err: error }, 'reading the bounce mailbox failed; trying again');
        }
        await new Promise<void>((resolve) => {
          const timer = setTimeout(done, every);
          function done() {
            clearTimeout(timer);
            ctx.signal.removeEventListener('abort', done);
            resolve();
          }
          ctx.signal.addEventListener('abort', done);
        });
      }
    },
  });
  return Object.assign(reactor, { readBounces });
}
