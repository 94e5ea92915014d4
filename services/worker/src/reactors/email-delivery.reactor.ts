import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import {
  emailAddressKey,
  emailAggregate,
  emailDeliveryAggregate,
  emailDeliveryEventId,
  emailInDoubtEventId,
  emailTrackingEventId,
  emailUnsubscribesAggregate,
  EmailSendResumed,
  parseEmailUnsubscribeEvent,
  parseEmailEvent,
  type EmailDraftSaved,
} from '@renkei/domain';
import { readStreamOrEmpty, streamId, type EventStore, type NewEvent, type RecordedEvent } from '@renkei/event-store';
import {
  bounceMailboxDir,
  createMailTransport,
  emailTrackingKey,
  gatedSend,
  parseBounce,
  prepareCampaignMail,
  type CampaignAttachment,
  type CampaignTemplate,
  type GatedSend,
  readVerpAddress,
  signTracking,
  verpAddress,
  type MailTransport,
} from '@renkei/mail';
import { defineReactor, sleepUnlessAborted, type Reactor, type ReactorContext } from '@renkei/projections';
import { sql, type Kysely } from 'kysely';
import { migrateModuleOnce, type Database } from '@renkei/db';
import { createPostgresFileStorage, type FileStorage } from '@renkei/file-storage';

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
   * Mails prepared at once across all sends (default 20: twice the pooled transport's connections,
   * so the next group is ready on the free connections while one group is committed), plus one for
   * each tenant with none under way.
   */
  concurrency?: number;
  /**
   * Mails of one send whose end of data goes out together, their outcomes then stored in one append
   * (group commit; RENKEI_EMAIL_COMMIT_GROUP, default 10, the local catcher's pooled connections). A
   * crash resends at most this many mails per send under way; 1 commits one mail at a time.
   */
  commitGroup?: number;
  /**
   * Recipients claimed per statement (default 10): a stopped run leaves at most the mails under way
   * and one slice in doubt.
   */
  claimSlice?: number;
  /** Tries of a failing send before it is parked (default 5). */
  maxAttempts?: number;
  /** First back-off after a failed try, times 4 after each (default 1 s). */
  retryBaseMs?: number;
  /** How often the queue looks for due sends it was not told of (default 1 s). */
  pollMs?: number;
  /** How often the bounce mailbox is read (default 5 s). */
  bouncePollMs?: number;
  /** Where campaign attachments are read from (default: the database's `files` schema). */
  storage?: (db: Database) => FileStorage;
}

/** The campaign's attachment is not in the file storage: the send is parked, never sent without it. */
class MissingAttachmentError extends Error {
  constructor(attachmentId: string) {
    super(`the attachment ${attachmentId} of this email is not in the file storage: the send is parked unsent`);
    this.name = 'MissingAttachmentError';
  }
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

interface Recipient {
  address: string;
  name: string | null;
  /** The position in the campaign's list (named by the VERP return path). */
  index: number;
}

interface JobRow {
  job_id: string;
  tenant_id: string;
  email_id: string;
  send_id: string;
  test: boolean;
  addresses: string[] | null;
  attempts: number;
  enqueued_at: Date | string;
}

/** A queued send being delivered: its recipients left, a cursor, and the lock that orders its commits. */
interface ActiveJob {
  row: JobRow;
  draft: EmailDraftSaved;
  /** The mail inlined and its text made once for the send; each recipient's is its URLs and headers. */
  template: CampaignTemplate;
  recipients: Recipient[];
  /** Unsubscribed addresses (keys): skipped with an event, never mailed. */
  skip: Set<string>;
  /** The next recipient to start. */
  cursor: number;
  /** The claim of each slice of recipients begun (slice number → its statement). */
  claims: Map<number, Promise<void>>;
  inFlight: number;
  failure: { error: unknown } | null;
  /** A mail was given up because the worker is stopping: the send stays queued. */
  interrupted: boolean;
  /** Mails ready for their end of data, waiting for the send's next commit group. */
  commitQueue: PendingCommit[];
  /** A commit group is under way (one at a time per send). */
  committing: boolean;
  /** Addresses whose end of data went out and whose outcome was not stored: maybe accepted. */
  uncertain: Set<string>;
}

/** A mail waiting for its commit group: the group ends it and stores its outcome with the others'. */
interface PendingCommit {
  send: GatedSend;
  event: NewEvent;
  signal: AbortSignal | null;
  done: (error?: unknown) => void;
}

const migrations = {
  '0001_email_delivery_queue': {
    async up(db: Kysely<unknown>) {
      await sql`CREATE SCHEMA IF NOT EXISTS email_delivery`.execute(db);
      // One row per send (campaign or test): the event's id, so a repeated batch enqueues nothing.
      await sql`
        CREATE TABLE email_delivery.jobs (
          job_id text PRIMARY KEY,
          tenant_id uuid NOT NULL,
          email_id uuid NOT NULL,
          send_id text NOT NULL,
          test boolean NOT NULL,
          addresses jsonb,
          state text NOT NULL DEFAULT 'queued',
          attempts integer NOT NULL DEFAULT 0,
          not_before timestamptz NOT NULL DEFAULT now(),
          in_doubt integer NOT NULL DEFAULT 0,
          last_error text,
          enqueued_at timestamptz NOT NULL DEFAULT now(),
          done_at timestamptz
        )`.execute(db);
      await sql`CREATE INDEX jobs_queued_idx ON email_delivery.jobs (not_before) WHERE state = 'queued'`.execute(db);
      // A recipient is claimed (in slices) before any of its mail leaves; its outcome is the event of
      // the delivery stream. A claim without an outcome found by a later run is 'in_doubt'.
      await sql`
        CREATE TABLE email_delivery.claims (
          email_id uuid NOT NULL,
          send_id text NOT NULL,
          address text NOT NULL,
          tenant_id uuid NOT NULL,
          state text NOT NULL DEFAULT 'claimed',
          claimed_at timestamptz NOT NULL DEFAULT now(),
          PRIMARY KEY (email_id, send_id, address)
        )`.execute(db);
    },
  },
};

const migrate = (db: Database) => migrateModuleOnce(db, 'email_delivery', migrations);

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
 * Delivers campaigns and test sends through a fair queue (docs/decisions.md, "Email delivery queue").
 * The reactor only enqueues: each `EmailSent` / `EmailTestSent` becomes a row of
 * `email_delivery.jobs`, and the background loop delivers the queued sends recipient by recipient,
 * the tenants taking turns one recipient at a time (a tenant's test sends before its campaigns),
 * so a 10,000-recipient campaign of one tenant never holds up another tenant's test or small campaign:
 * when every slot is taken, a tenant with no mail under way still starts one, so even mails of one
 * tenant that hang do not hold up another tenant's.
 *
 * Exactly one mail per recipient across crashes: each recipient's outcome is an event whose id
 * derives from the email, the send and the address, and a resumed send skips who has one. Mails
 * are prepared side by side, but a send commits one group at a time (the end of data, the server's
 * answers, then the outcomes' events: `gatedSend`), so a crash leaves at most one commit group of a
 * send accepted without outcomes; those recipients get it again, with the same Message-ID. Recipients
 * are claimed in slices before their mails leave; a later run marks the claims it finds without an
 * outcome `in_doubt` (the one duplicate, if any, is among them) and counts them on the job.
 */
export function createEmailDeliveryReactor(options: EmailDeliveryOptions = {}): Reactor & {
  readBounces(ctx: ReactorContext): Promise<number>;
  /** Delivers every queued send now due, then returns (tests, the bench). */
  drain(ctx: ReactorContext): Promise<void>;
} {
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
  const concurrency = Math.max(1, options.concurrency ?? 20);
  const slice = Math.max(1, options.claimSlice ?? 10);
  const commitGroup = Math.max(1, options.commitGroup ?? (Number(process.env.RENKEI_EMAIL_COMMIT_GROUP) || 10));
  const maxAttempts = Math.max(1, options.maxAttempts ?? 5);
  const retryBaseMs = options.retryBaseMs ?? 1_000;
  const pollMs = options.pollMs ?? 1_000;
  const pace = pacer(options.ratePerMinute ?? (Number(process.env.RENKEI_EMAIL_RATE_PER_MINUTE) || 600));
  const mailer = () =>
    (transport ??= options.transport
      ? options.transport()
      : createMailTransport({
          smtpUrl: process.env.SMTP_URL,
          pool: true,
          // A commit group holds its connections until the server's answers; as many again let the
          // next group's envelopes and bodies go out meanwhile, so it is full when its turn comes.
          maxConnections: Math.max(5, 2 * commitGroup),
          fallbackPort: Number(process.env.SMTP_PORT ?? 2525),
        }));

  /** Wakes the running queue (a send was just enqueued). */
  let kick: (() => void) | null = null;

  const storages = new WeakMap<Database, FileStorage>();
  const storageOf = (db: Database) => {
    let storage = storages.get(db);
    if (!storage) {
      storage = options.storage?.(db) ?? createPostgresFileStorage(db);
      storages.set(db, storage);
    }
    return storage;
  };

  /**
   * The campaign's attachment, read once per send (at most 3 MiB, the command side's limit) and
   * encoded into each recipient's mail from the same bytes. A file that is not there is a
   * `MissingAttachmentError`: the referenced file is never swept, so this means something removed it,
   * and sending the campaign without the file its text announces cannot be taken back.
   */
  async function attachmentsOf(
    ctx: ReactorContext,
    row: JobRow,
    draft: EmailDraftSaved,
  ): Promise<CampaignAttachment[]> {
    if (!draft.attachment_id) return [];
    const storage = storageOf(ctx.db);
    const [file] = await storage.find(row.tenant_id, [draft.attachment_id]);
    if (!file) throw new MissingAttachmentError(draft.attachment_id);
    const chunks: Buffer[] = [];
    for await (const chunk of storage.read(file)) chunks.push(Buffer.from(chunk));
    return [{ filename: file.filename, content: Buffer.concat(chunks), contentType: file.contentType }];
  }

  const metadataOf = (row: Pick<JobRow, 'tenant_id' | 'email_id'>) => ({
    tenant_id: row.tenant_id,
    account_id: null,
    correlation_id: row.email_id,
    causation_id: null,
    schema_version: 1,
  });

  /**
   * Parks a send: the row says so for ops, and a campaign's stop is an event of its delivery stream, so
   * the emails screens show it and its sender can resume it (test sends are the tester's to repeat).
   * The event goes first: a crash between the two leaves the send retried and parked again, never a
   * parked send the screens do not show.
   */
  async function park(
    ctx: ReactorContext,
    row: Pick<JobRow, 'job_id' | 'tenant_id' | 'email_id' | 'test'>,
    reason: 'attachment_missing' | 'delivery_failed',
    message: string,
    attempts: number,
  ) {
    const error = message.slice(0, 2000);
    if (!row.test)
      await ctx.store.append(
        streamId(emailDeliveryAggregate, row.email_id),
        [
          {
            id: randomUUID(),
            type: 'EmailSendParked',
            data: { email_id: row.email_id, reason, error, parked_at: new Date().toISOString() },
            metadata: metadataOf(row),
          },
        ],
        { expectedRevision: 'any' },
      );
    await sql`UPDATE email_delivery.jobs SET state = 'parked', attempts = ${attempts}, last_error = ${error}
      WHERE job_id = ${row.job_id}`.execute(ctx.db.kysely);
  }

  /** Loads a queued send: its draft, the recipients without an outcome, and marks the claims in doubt. */
  async function activate(ctx: ReactorContext, row: JobRow): Promise<ActiveJob | null> {
    const draft = await draftOf(ctx.store, row.tenant_id, row.email_id);
    if (!draft) return null;
    // Before any claim or doubt is noted: a send parked for its attachment has touched nothing.
    const attachments = await attachmentsOf(ctx, row, draft);
    const all: Recipient[] = row.test
      ? (row.addresses ?? []).map((address, index) => ({ address, name: null, index }))
      : draft.recipients.map((r, index) => ({ address: r.email_address, name: r.name, index }));
    const done = new Set(
      (await readStreamOrEmpty(ctx.store, streamId(emailDeliveryAggregate, row.email_id), row.tenant_id)).map(
        (e) => e.id,
      ),
    );
    const recipients = all.filter((r) => !done.has(emailDeliveryEventId(row.email_id, row.send_id, r.address)));
    // Claims of an earlier run with no outcome: that run stopped with these mails prepared or on their
    // way; at most one commit group of them reached the server's end of data. A campaign's doubt is
    // an event first (its id from the set, so noting it again after a crash right here is the same
    // event), then the claims are marked, so the report shows it whatever happens in between.
    const left = recipients.map((r) => emailAddressKey(r.address));
    const { rows: claimed } = await sql<{ address: string }>`
      SELECT address FROM email_delivery.claims
       WHERE email_id = ${row.email_id} AND send_id = ${row.send_id} AND state = 'claimed'
         AND address = ANY(${left}::text[])`.execute(ctx.db.kysely);
    const doubtful = claimed.map((c) => c.address).sort();
    if (doubtful.length > 0) {
      if (!row.test)
        await ctx.store.append(
          streamId(emailDeliveryAggregate, row.email_id),
          [
            {
              id: emailInDoubtEventId(row.email_id, row.send_id, doubtful),
              type: 'EmailRecipientsInDoubt',
              data: { email_id: row.email_id, email_addresses: doubtful, noted_at: new Date().toISOString() },
              metadata: metadataOf(row),
            },
          ],
          { expectedRevision: 'any' },
        );
      await sql`
        UPDATE email_delivery.claims SET state = 'in_doubt'
         WHERE email_id = ${row.email_id} AND send_id = ${row.send_id} AND address = ANY(${doubtful}::text[])`.execute(
        ctx.db.kysely,
      );
      await sql`UPDATE email_delivery.jobs SET in_doubt = in_doubt + ${doubtful.length} WHERE job_id = ${row.job_id}`.execute(
        ctx.db.kysely,
      );
      ctx.logger?.warn(
        { tenant_id: row.tenant_id, email_id: row.email_id, in_doubt: doubtful.length },
        'email send resumed: recipients claimed by the stopped run are sent again (at most one commit group of them twice)',
      );
    }
    return {
      row,
      draft,
      template: prepareCampaignMail({
        from: { name: draft.sender_name, address: draft.sender_email },
        subject: row.test ? `[テスト送信] ${draft.title}` : draft.title,
        html: draft.main_content,
        // A test send is never counted: no pixel, links left as they are.
        trackClicks: !row.test,
        trackOpens: !row.test,
        attachments,
      }),
      recipients,
      skip: row.test ? new Set() : await unsubscribed(ctx.store, row.tenant_id),
      cursor: 0,
      claims: new Map(),
      inFlight: 0,
      failure: null,
      interrupted: false,
      commitQueue: [],
      committing: false,
      uncertain: new Set(),
    };
  }

  /**
   * Claims the slice of the job's recipients that holds `index`, one statement per slice. Slices are
   * claimed side by side, while their mails are prepared: a mail waits for its claim only before its
   * end of data, so the claims stay off the path of the commits (a claim per slice in a row, each a
   * commit of the database, had set the pace of the mails' preparation).
   */
  function claimSliceOf(ctx: ReactorContext, job: ActiveJob, index: number): Promise<void> {
    const n = Math.floor(index / slice);
    let claim = job.claims.get(n);
    if (!claim) {
      const addresses = job.recipients
        .slice(n * slice, Math.min(job.recipients.length, (n + 1) * slice))
        .map((r) => emailAddressKey(r.address));
      claim = sql`
          INSERT INTO email_delivery.claims (email_id, send_id, address, tenant_id)
          SELECT ${job.row.email_id}, ${job.row.send_id}, a, ${job.row.tenant_id} FROM unnest(${addresses}::text[]) AS a
          ON CONFLICT (email_id, send_id, address) DO NOTHING`
        .execute(ctx.db.kysely)
        .then(() => undefined);
      // Awaited by the slice's mails; a failure before one of them waits is no unhandled rejection.
      claim.catch(() => undefined);
      job.claims.set(n, claim);
    }
    return claim;
  }

  /**
   * Group commit: the mails of a send waiting for their end of data go out together (at most
   * `commitGroup`), and their outcomes are stored in one append before the next group's end of data.
   * A crash leaves at most one group of a send accepted without outcomes: those recipients get the
   * mail again, with the same Message-ID.
   */
  function commitInGroup(ctx: ReactorContext, job: ActiveJob, pending: Omit<PendingCommit, 'done'>): Promise<void> {
    const done = new Promise<void>((resolve, reject) =>
      job.commitQueue.push({ ...pending, done: (error) => (error === undefined ? resolve() : reject(error)) }),
    );
    void runCommits(ctx, job);
    return done;
  }

  async function runCommits(ctx: ReactorContext, job: ActiveJob) {
    if (job.committing) return;
    job.committing = true;
    try {
      while (job.commitQueue.length > 0) {
        const group = job.commitQueue.splice(0, commitGroup);
        // A failure of another mail of this send, or the worker stopping: given up unsent.
        const going: PendingCommit[] = [];
        for (const p of group) {
          if (job.failure || p.signal?.aborted) {
            if (p.signal?.aborted) job.interrupted = true;
            await p.send.abort();
            p.done();
          } else going.push(p);
        }
        if (going.length === 0) continue;
        const answers = await Promise.allSettled(going.map((p) => p.send.commit()));
        const accepted = going.filter((_, i) => answers[i]!.status === 'fulfilled');
        let stored: unknown;
        if (accepted.length > 0)
          stored = await ctx.store
            .append(
              streamId(emailDeliveryAggregate, job.row.email_id),
              accepted.map((p) => p.event),
              { expectedRevision: 'any' },
            )
            .then(
              () => undefined,
              (error: unknown) => error ?? new Error('outcome append failed'),
            );
        // A store that failed stops the send here, before the next group's end of data: waiting for
        // the mails' own ends to note it (a microtask later) let one more group be accepted unstored.
        if (stored !== undefined) job.failure ??= { error: stored };
        going.forEach((p, i) => {
          const answer = answers[i]!;
          // The server's refusal (an SMTP answer) is certain; a lost connection or store is not.
          const refused =
            answer.status === 'rejected' &&
            typeof (answer.reason as { responseCode?: unknown })?.responseCode === 'number';
          if (!refused && (answer.status === 'rejected' || stored !== undefined))
            job.uncertain.add(emailAddressKey((p.event.data as { email_address: string }).email_address));
          p.done(answer.status === 'rejected' ? (answer.reason ?? new Error('mail refused')) : stored);
        });
      }
    } finally {
      job.committing = false;
    }
  }

  async function deliverOne(
    ctx: ReactorContext,
    job: ActiveJob,
    recipient: Recipient,
    claimed: Promise<void>,
    signal: AbortSignal | null,
  ) {
    const { row } = job;
    const deliveryStream = streamId(emailDeliveryAggregate, row.email_id);
    const id = emailDeliveryEventId(row.email_id, row.send_id, recipient.address);
    const address = emailAddressKey(recipient.address);
    if (job.skip.has(address)) {
      await ctx.store.append(
        deliveryStream,
        [
          {
            id,
            type: 'EmailRecipientSkipped',
            data: { email_id: row.email_id, email_address: recipient.address, reason: 'unsubscribed' },
            metadata: metadataOf(job.row),
          },
        ],
        { expectedRevision: 'any' },
      );
      return;
    }
    const origin = publicOrigin();
    const bounceReturn = bounceAddress();
    const claims = { t: row.tenant_id, e: row.email_id, r: address, s: Math.floor(Date.now() / 1000) };
    const token = (u?: string) => signTracking(trackingKey(), u ? { ...claims, u } : claims);
    await pace();
    const send = await gatedSend(
      mailer(),
      job.template.render({
        to: { name: recipient.name, address: recipient.address },
        unsubscribeUrl: `${origin}/t/u/${token()}`,
        openUrl: row.test ? null : `${origin}/t/o/${token()}`,
        clickUrl: row.test ? null : (href) => `${origin}/t/c/${token(href)}`,
        messageId: `<${id}@renkei>`,
        // A test send's bounce is the tester's business: only campaign mails carry a VERP path.
        returnPath:
          row.test || !bounceReturn
            ? null
            : verpAddress(trackingKey(), bounceReturn, { emailId: row.email_id, recipient: recipient.index }),
      }),
    );
    await send.ready;
    // The claim is stored before the server may accept the mail: a crash from here on finds it.
    try {
      await claimed;
    } catch (error) {
      await send.abort();
      throw error;
    }
    await commitInGroup(ctx, job, {
      send,
      signal,
      event: {
        id,
        type: 'EmailRecipientDelivered',
        data: {
          email_id: row.email_id,
          email_address: recipient.address,
          delivered_at: new Date().toISOString(),
          test: row.test,
        },
        metadata: metadataOf(job.row),
      },
    });
  }

  /**
   * The queue: loads the due sends, and a dispatcher starts their mails, up to `concurrency` at once,
   * the tenants in turn. With `untilIdle` it returns once nothing due is left; else when `signal` aborts.
   */
  async function runQueue(ctx: ReactorContext, run: { signal: AbortSignal | null; untilIdle: boolean }) {
    await migrate(ctx.db);
    const active = new Map<string, ActiveJob>();
    const settling = new Set<Promise<void>>();
    let tenantTurn = 0;
    // Every waiter (the dispatcher, the feed) wakes on new work, a send's end, or the stop.
    const waiters = new Set<() => void>();
    const wakeUp = () => {
      for (const waiter of [...waiters]) waiter();
    };
    run.signal?.addEventListener('abort', wakeUp);
    kick = wakeUp;
    const waitForWork = (ms: number) =>
      new Promise<void>((resolve) => {
        const timer = setTimeout(done, ms);
        waiters.add(done);
        function done() {
          clearTimeout(timer);
          waiters.delete(done);
          resolve();
        }
      });
    const stopping = () => run.signal?.aborted === true;

    /** Mails under way, in all and per tenant. */
    let running = 0;
    const busy = new Map<string, number>();
    const mails = new Set<Promise<void>>();

    /**
     * The next recipient: the tenant after the last one served, its oldest test send first, then its
     * oldest campaign. With `newcomersOnly` (every slot taken) only a tenant with no mail under way
     * may start one: however long another tenant's mails take, a tenant's first mail never waits
     * for them.
     */
    function pick(newcomersOnly: boolean): { job: ActiveJob; recipient: Recipient; position: number } | null {
      const byTenant = new Map<string, ActiveJob[]>();
      for (const job of active.values()) {
        if (job.failure || job.cursor >= job.recipients.length) continue;
        if (newcomersOnly && (busy.get(job.row.tenant_id) ?? 0) > 0) continue;
        const list = byTenant.get(job.row.tenant_id) ?? [];
        list.push(job);
        byTenant.set(job.row.tenant_id, list);
      }
      const tenants = [...byTenant.keys()].sort();
      if (tenants.length === 0) return null;
      const tenant = tenants[tenantTurn++ % tenants.length]!;
      const job = byTenant
        .get(tenant)!
        .sort(
          (a, b) =>
            Number(b.row.test) - Number(a.row.test) ||
            new Date(a.row.enqueued_at).getTime() - new Date(b.row.enqueued_at).getTime(),
        )[0]!;
      const position = job.cursor++;
      return { job, recipient: job.recipients[position]!, position };
    }

    /** Ends a send whose mails have all stopped: done, or back in the queue after a back-off, or parked. */
    function settle(job: ActiveJob) {
      if (job.inFlight > 0 || (!job.failure && job.cursor < job.recipients.length && !stopping())) return;
      if (!active.delete(job.row.job_id)) return;
      const finished = !job.failure && !job.interrupted && job.cursor >= job.recipients.length;
      const work = (async () => {
        if (finished) {
          await sql`UPDATE email_delivery.jobs SET state = 'done', done_at = now(), last_error = NULL
            WHERE job_id = ${job.row.job_id}`.execute(ctx.db.kysely);
        } else {
          // This run knows which of its claimed recipients cannot have the mail (never ended, or
          // refused by the server): their claims go, so the next run notes only real doubt.
          await sql`DELETE FROM email_delivery.claims
            WHERE email_id = ${job.row.email_id} AND send_id = ${job.row.send_id} AND state = 'claimed'
              AND NOT (address = ANY(${[...job.uncertain]}::text[]))`.execute(ctx.db.kysely);
          if (job.failure) await failed(job.row, job.failure.error);
        }
        // Stopped by shutdown: still queued, resumed by the next start.
      })()
        .catch((error: unknown) =>
          ctx.logger?.error({ err: error, email_id: job.row.email_id }, 'recording the end of an email send failed'),
        )
        .finally(() => {
          settling.delete(work);
          wakeUp();
        });
      settling.add(work);
    }

    async function failed(row: JobRow, error: unknown) {
      const attempts = row.attempts + 1;
      const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      if (attempts >= maxAttempts) {
        ctx.logger?.error({ err: error, tenant_id: row.tenant_id, email_id: row.email_id }, 'email send parked');
        await park(ctx, row, 'delivery_failed', message, attempts);
        return;
      }
      ctx.logger?.warn({ err: error, tenant_id: row.tenant_id, email_id: row.email_id }, 'email send failed; retrying');
      const backoff = retryBaseMs * 4 ** (attempts - 1);
      await sql`UPDATE email_delivery.jobs SET attempts = ${attempts}, last_error = ${message.slice(0, 2000)},
          not_before = now() + make_interval(secs => ${backoff / 1000})
        WHERE job_id = ${row.job_id}`.execute(ctx.db.kysely);
    }

    let idle = false;
    async function deliver(job: ActiveJob, recipient: Recipient, position: number) {
      job.inFlight++;
      try {
        const claimed = claimSliceOf(ctx, job, position);
        try {
          if (stopping()) job.interrupted = true;
          else if (!job.failure) await deliverOne(ctx, job, recipient, claimed, run.signal);
        } finally {
          // Settled before the mail counts as ended: a send's end deletes the claims it knows unsent.
          await claimed.catch(() => undefined);
        }
        await claimed;
      } catch (error) {
        job.failure ??= { error };
      } finally {
        job.inFlight--;
        // After a failure no mail of this send is started any more.
        if (job.failure) job.cursor = job.recipients.length;
        settle(job);
      }
    }

    // The dispatcher alone waits for a slot: a mail's end wakes it, not the feed (which would query).
    let slotFreed: (() => void) | null = null;
    const waitForSlot = (ms: number) =>
      new Promise<void>((resolve) => {
        const timer = setTimeout(done, ms);
        waiters.add(done);
        slotFreed = done;
        function done() {
          clearTimeout(timer);
          waiters.delete(done);
          slotFreed = null;
          resolve();
        }
      });

    /**
     * Starts mails, up to `concurrency` under way, the tenants in turn; beyond that, one for a tenant
     * with none under way (so at most `concurrency` + the other tenants' number).
     */
    async function dispatch() {
      while (!stopping() && !idle) {
        const next = pick(running >= concurrency);
        if (!next) {
          await waitForSlot(pollMs);
          continue;
        }
        const tenant = next.job.row.tenant_id;
        running++;
        busy.set(tenant, (busy.get(tenant) ?? 0) + 1);
        const mail = deliver(next.job, next.recipient, next.position).finally(() => {
          running--;
          const left = busy.get(tenant)! - 1;
          if (left > 0) busy.set(tenant, left);
          else busy.delete(tenant);
          mails.delete(mail);
          slotFreed?.();
        });
        mails.add(mail);
      }
    }

    async function feed() {
      while (!stopping()) {
        let due: JobRow[] = [];
        try {
          const { rows } = await sql<JobRow>`
            SELECT job_id, tenant_id, email_id, send_id, test, addresses, attempts, enqueued_at
              FROM email_delivery.jobs
             WHERE state = 'queued' AND not_before <= now()
             ORDER BY enqueued_at LIMIT 200`.execute(ctx.db.kysely);
          due = rows.filter((row) => !active.has(row.job_id));
          for (const row of due) {
            let job: ActiveJob | null;
            try {
              job = await activate(ctx, row);
            } catch (error) {
              if (!(error instanceof MissingAttachmentError)) throw error;
              // Retrying brings no file back: parked at once, with the reason on the row and in the log.
              ctx.logger?.error(
                { err: error, tenant_id: row.tenant_id, email_id: row.email_id },
                'email send parked: its attachment is missing',
              );
              await park(ctx, row, 'attachment_missing', `${error.name}: ${error.message}`, row.attempts + 1);
              continue;
            }
            if (!job) {
              // Deleted since (or never saved): nothing to send.
              await sql`UPDATE email_delivery.jobs SET state = 'done', done_at = now() WHERE job_id = ${row.job_id}`.execute(
                ctx.db.kysely,
              );
              continue;
            }
            active.set(row.job_id, job);
            settle(job); // a send with nobody left ends at once
          }
        } catch (error) {
          ctx.logger?.error({ err: error }, 'loading queued email sends failed; trying again');
        }
        if (due.length > 0) wakeUp();
        if (run.untilIdle && active.size === 0 && settling.size === 0 && due.length === 0) {
          const { rows } = await sql<{ n: number }>`
            SELECT count(*)::int AS n FROM email_delivery.jobs WHERE state = 'queued' AND not_before <= now()`.execute(
            ctx.db.kysely,
          );
          if ((rows[0]?.n ?? 0) === 0) break;
        }
        await waitForWork(pollMs);
      }
      idle = true;
      wakeUp();
    }

    await Promise.all([feed(), dispatch()]);
    // The mails under way end (or are given up on the stop), then the last sends' ends are recorded.
    while (mails.size > 0) await Promise.all([...mails]);
    while (settling.size > 0) await Promise.all([...settling]);
    run.signal?.removeEventListener('abort', wakeUp);
    if (kick === wakeUp) kick = null;
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
    eventTypes: ['EmailSent', 'EmailTestSent', 'EmailSendResumed'],
    // Mails are side effects: a worker meeting this reactor for the first time does not send history.
    startAt: 'head',
    async handle(events: RecordedEvent[], ctx) {
      await migrate(ctx.db);
      for (const recorded of events) {
        if (recorded.type === 'EmailSendResumed') {
          // Back in the queue with its tries afresh; the recipients done keep their outcome.
          const { email_id } = EmailSendResumed.parse(recorded.data);
          await sql`
            UPDATE email_delivery.jobs SET state = 'queued', attempts = 0, not_before = now(), last_error = NULL
             WHERE tenant_id = ${recorded.metadata.tenant_id} AND email_id = ${email_id} AND NOT test
               AND state = 'parked'`.execute(ctx.db.kysely);
          continue;
        }
        const event = parseEmailEvent(recorded);
        if (event.type !== 'EmailSent' && event.type !== 'EmailTestSent') continue;
        const test = event.type === 'EmailTestSent';
        await sql`
          INSERT INTO email_delivery.jobs (job_id, tenant_id, email_id, send_id, test, addresses)
          VALUES (${recorded.id}, ${recorded.metadata.tenant_id}, ${event.data.email_id},
                  ${test ? event.data.test_id : 'send'}, ${test},
                  ${test ? JSON.stringify(event.data.email_addresses) : null}::jsonb)
          ON CONFLICT (job_id) DO NOTHING`.execute(ctx.db.kysely);
      }
      kick?.();
    },
    async background(ctx) {
      const every = options.bouncePollMs ?? 5_000;
      const bounces = async () => {
        while (!ctx.signal.aborted) {
          try {
            await readBounces(ctx);
          } catch (error) {
            ctx.logger?.error({ err: error }, 'reading the bounce mailbox failed; trying again');
          }
          await sleepUnlessAborted(every, ctx.signal);
        }
      };
      await Promise.all([bounces(), runQueue(ctx, { signal: ctx.signal, untilIdle: false })]);
    },
  });
  return Object.assign(reactor, {
    readBounces,
    drain: (ctx: ReactorContext) => runQueue(ctx, { signal: null, untilIdle: true }),
  });
}
