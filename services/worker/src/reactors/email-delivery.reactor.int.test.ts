import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '@renkei/db';
import { emailSendResumedEventId, emailUnsubscribedEventId } from '@renkei/domain';
import {
  createPostgresEventStore,
  newEventMetadata,
  readStreamOrEmpty,
  streamId,
  type EventStore,
} from '@renkei/event-store';
import { createMailTransport, listMails, startMailCatcher, verifyTracking, emailTrackingKey } from '@renkei/mail';
import { startProjections } from '@renkei/projections';
import { emailsProjection } from '@renkei/read-models';
import { sql } from 'kysely';
import { createPostgresFileStorage, type StoredFile } from '@renkei/file-storage';
import { createEmailDeliveryReactor } from './email-delivery.reactor.ts';

let db: TestDatabase;
let store: EventStore;
let dir: string;
let catcher: { port: number; close(): Promise<void> };

beforeAll(async () => {
  db = await createTestDatabase();
  store = await createPostgresEventStore(db);
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'renkei-mail-'));
  catcher = await startMailCatcher(dir, 0);
});

afterAll(async () => {
  await catcher?.close();
  await store?.close();
  await db?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const addresses = ['a@example.jp', 'b@example.jp', 'c@example.jp', 'd@example.jp', 'e@example.jp'];

async function campaign(
  tenantId: string,
  to: readonly string[] = addresses,
  title = '【ご案内】勉強会のお知らせ',
  attachmentId: string | null = null,
) {
  const emailId = randomUUID();
  await store.append(
    streamId('email', emailId),
    [
      {
        type: 'EmailCreated',
        data: {
          email_id: emailId,
          title,
          sender_name: '地域連携室',
          sender_email: 'renkei@example.jp',
          main_content: '<p>勉強会を開催します。<a href="https://example.jp/seminar">詳細</a></p>',
          attachment_id: attachmentId,
          doctor_ids: [],
          recipients: to.map((email_address) => ({
            email_address,
            name: null,
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
  const events = await readStreamOrEmpty(store, streamId('email', emailId), tenantId);
  return { emailId, sent: events.filter((e) => e.type === 'EmailSent') };
}

const mailsTo = async (address: string, subject: string) =>
  (await listMails(dir)).filter((m) => m.to === address && m.subject === subject);

describe('email delivery reactor', () => {
  it('mails each recipient exactly once across a failure in the middle, and skips unsubscribed addresses', async () => {
    const tenantId = randomUUID();
    await store.append(
      streamId('email_unsubscribes', tenantId),
      [
        {
          id: emailUnsubscribedEventId(tenantId, 'E@example.jp'),
          type: 'EmailUnsubscribed',
          data: { email_address: 'E@example.jp', email_id: randomUUID() },
          metadata: newEventMetadata(tenantId),
        },
      ],
      { expectedRevision: 'any' },
    );
    const { emailId, sent } = await campaign(tenantId);
    const real = createMailTransport({ catcherPort: catcher.port });
    let calls = 0;
    // The third mail fails as a dying connection would; the reactor repeats the batch (at-least-once).
    const flaky = {
      sendMail: async (options: Parameters<typeof real.sendMail>[0]) => {
        if (++calls === 3) throw new Error('connection lost');
        return real.sendMail(options);
      },
    } as unknown as typeof real;
    const reactor = createEmailDeliveryReactor({
      publicOrigin: 'https://renkei.example.jp',
      dataDir: dir,
      ratePerMinute: 60_000,
      retryBaseMs: 0,
      transport: () => flaky,
    });
    const ctx = { db, store };
    // The reactor only queues (twice: at-least-once); the queue retries the failed send.
    await reactor.handle(sent, ctx);
    await reactor.handle(sent, ctx);
    await reactor.drain(ctx);
    const { rows: jobs } = await sql<{ state: string; attempts: number; last_error: string }>`
      SELECT state, attempts, last_error FROM email_delivery.jobs WHERE email_id = ${emailId}`.execute(db.kysely);
    expect(jobs).toEqual([{ state: 'done', attempts: 1, last_error: null }]);

    const subject = '【ご案内】勉強会のお知らせ';
    for (const address of addresses.slice(0, 4)) expect(await mailsTo(address, subject), address).toHaveLength(1);
    expect(await mailsTo('e@example.jp', subject)).toHaveLength(0);
    const outcomes = await readStreamOrEmpty(store, streamId('email_delivery', emailId), tenantId);
    expect(outcomes.map((e) => e.type).sort()).toEqual([
      ...Array(4).fill('EmailRecipientDelivered'),
      'EmailRecipientSkipped',
    ]);

    // The mail's links are signed for that recipient and that link only.
    const [mail] = await mailsTo('a@example.jp', subject);
    const click = /href="https:\/\/renkei\.example\.jp\/t\/c\/([^"]+)"/.exec(mail!.html!)![1]!;
    expect(verifyTracking(emailTrackingKey(dir, undefined), click)).toEqual({
      t: tenantId,
      e: emailId,
      r: 'a@example.jp',
      u: 'https://example.jp/seminar',
      s: expect.any(Number),
    });
    expect(mail!.html).toMatch(/src="https:\/\/renkei\.example\.jp\/t\/o\/[^"]+"/);
    expect(mail!.text).toContain('配信停止: https://renkei.example.jp/t/u/');
    real.close();
  });

  it('sends a test to the given addresses, marked as a test and without tracking', async () => {
    const tenantId = randomUUID();
    const { emailId } = await campaign(tenantId);
    const test = await store.append(
      streamId('email', emailId),
      [
        {
          type: 'EmailTestSent',
          data: { email_id: emailId, test_id: randomUUID(), email_addresses: ['me@example.jp'] },
          metadata: newEventMetadata(tenantId),
        },
      ],
      { expectedRevision: 'any' },
    );
    const events = (await readStreamOrEmpty(store, streamId('email', emailId), tenantId)).filter(
      (e) => e.revision === test.revision,
    );
    const reactor = createEmailDeliveryReactor({
      publicOrigin: 'https://renkei.example.jp',
      dataDir: dir,
      ratePerMinute: 60_000,
      transport: () => createMailTransport({ catcherPort: catcher.port }),
    });
    await reactor.handle(events, { db, store });
    await reactor.drain({ db, store });
    const [mail] = await mailsTo('me@example.jp', '[テスト送信] 【ご案内】勉強会のお知らせ');
    expect(mail).toBeDefined();
    expect(mail!.html).toContain('href="https://example.jp/seminar"');
    expect(mail!.html).not.toContain('/t/o/');
  });
});

describe('campaign attachments', () => {
  it('attaches the file, read once per send, to every mail and test mail under its Japanese name', async () => {
    const tenantId = randomUUID();
    const storage = createPostgresFileStorage(db);
    const pdf = Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.alloc(300 * 1024, 0x20), Buffer.from('%%EOF\n')]);
    const file = await storage.put(
      {
        id: randomUUID(),
        tenantId,
        filename: '第３回 勉強会のご案内（資料）.pdf',
        contentType: 'application/pdf',
        createdBy: randomUUID(),
      },
      [pdf],
    );
    let reads = 0;
    const counting = { ...storage, read: (f: StoredFile) => (reads++, storage.read(f)) };
    const to = ['att1@example.jp', 'att2@example.jp', 'att3@example.jp'];
    const title = '【資料添付】勉強会のご案内';
    const { emailId, sent } = await campaign(tenantId, to, title, file.id);
    const test = await store.append(
      streamId('email', emailId),
      [
        {
          type: 'EmailTestSent',
          data: { email_id: emailId, test_id: randomUUID(), email_addresses: ['att-tester@example.jp'] },
          metadata: newEventMetadata(tenantId),
        },
      ],
      { expectedRevision: 'any' },
    );
    const testEvent = (await readStreamOrEmpty(store, streamId('email', emailId), tenantId)).filter(
      (e) => e.revision === test.revision,
    );
    const reactor = createEmailDeliveryReactor({
      publicOrigin: 'https://renkei.example.jp',
      dataDir: dir,
      ratePerMinute: 60_000,
      transport: () => createMailTransport({ catcherPort: catcher.port }),
      storage: () => counting,
    });
    await reactor.handle([...sent, ...testEvent], { db, store });
    await reactor.drain({ db, store });
    const caught = [
      ...(await listMails(dir)).filter((m) => m.subject === title),
      ...(await mailsTo('att-tester@example.jp', `[テスト送信] ${title}`)),
    ];
    expect(caught.map((m) => m.to).sort()).toEqual([...to, 'att-tester@example.jp'].sort());
    for (const mail of caught)
      expect(mail.attachments).toEqual([
        { filename: '第３回 勉強会のご案内（資料）.pdf', contentType: 'application/pdf', size: pdf.length },
      ]);
    // The raw mail names it as RFC 2231 (ASCII only in the header).
    const raw = fs.readFileSync(caught[0]!.file, 'utf8');
    expect(raw).toMatch(/^Content-Disposition: attachment;\s+filename\*0\*=utf-8''%E7%AC%AC/im);
    // Once for the campaign and once for the test send, not once per recipient.
    expect(reads).toBe(2);
  });

  it('parks a send whose attachment is missing, with the reason, and mails nobody', async () => {
    const tenantId = randomUUID();
    const title = '【添付なし】止められた案内';
    const missing = randomUUID();
    const { emailId, sent } = await campaign(tenantId, ['gone1@example.jp', 'gone2@example.jp'], title, missing);
    const reactor = createEmailDeliveryReactor({
      publicOrigin: 'https://renkei.example.jp',
      dataDir: dir,
      ratePerMinute: 60_000,
      transport: () => createMailTransport({ catcherPort: catcher.port }),
    });
    await reactor.handle(sent, { db, store });
    await reactor.drain({ db, store });
    const { rows } = await sql<{ state: string; last_error: string }>`
      SELECT state, last_error FROM email_delivery.jobs WHERE email_id = ${emailId}`.execute(db.kysely);
    expect(rows).toEqual([{ state: 'parked', last_error: expect.stringContaining(missing) }]);
    expect((await listMails(dir)).filter((m) => m.subject === title)).toEqual([]);
    // No outcome; the stop itself is on the delivery stream, for the emails screens.
    const delivery = await readStreamOrEmpty(store, streamId('email_delivery', emailId), tenantId);
    expect(delivery.map((e) => [e.type, e.data])).toEqual([
      [
        'EmailSendParked',
        {
          email_id: emailId,
          reason: 'attachment_missing',
          error: expect.stringContaining(missing),
          parked_at: expect.any(String),
        },
      ],
    ]);
  });
});

describe('parked sends', () => {
  it('parks a campaign whose server keeps refusing, and a resume sends the rest once each', async () => {
    const tenantId = randomUUID();
    const title = '【再開】止まった案内';
    const to = ['park1@example.jp', 'park2@example.jp', 'park3@example.jp'];
    const { emailId, sent } = await campaign(tenantId, to, title);
    const real = createMailTransport({ catcherPort: catcher.port });
    let refusing = true;
    let calls = 0;
    // The first mail goes through; then the server refuses until it is "repaired".
    const server = {
      sendMail: async (options: Parameters<typeof real.sendMail>[0]) => {
        if (refusing && ++calls > 1) throw new Error('421 service not available');
        return real.sendMail(options);
      },
    } as unknown as typeof real;
    const reactor = createEmailDeliveryReactor({
      publicOrigin: 'https://renkei.example.jp',
      dataDir: dir,
      ratePerMinute: 60_000,
      retryBaseMs: 0,
      maxAttempts: 2,
      concurrency: 1,
      commitGroup: 1,
      transport: () => server,
    });
    const ctx = { db, store };
    await reactor.handle(sent, ctx);
    await reactor.drain(ctx);
    const job = async () =>
      (
        await sql<{ state: string; attempts: number }>`
          SELECT state, attempts FROM email_delivery.jobs WHERE email_id = ${emailId}`.execute(db.kysely)
      ).rows;
    expect(await job()).toEqual([{ state: 'parked', attempts: 2 }]);
    const parked = (await readStreamOrEmpty(store, streamId('email_delivery', emailId), tenantId)).filter(
      (e) => e.type === 'EmailSendParked',
    );
    expect(parked.map((e) => e.data)).toEqual([
      expect.objectContaining({
        reason: 'delivery_failed',
        error: expect.stringContaining('421 service not available'),
      }),
    ]);
    expect(await delivered(tenantId, emailId)).toBe(1);

    // A resume of another tenant's id changes nothing; the sender's own puts it back in the queue.
    refusing = false;
    const resume = (tenant: string) =>
      store.append(
        streamId('email_delivery', emailId),
        [
          {
            id: emailSendResumedEventId(parked[0]!.id),
            type: 'EmailSendResumed',
            data: { email_id: emailId, parked_event_id: parked[0]!.id, resumed_at: new Date().toISOString() },
            metadata: newEventMetadata(tenant),
          },
        ],
        { expectedRevision: 'any' },
      );
    await reactor.handle(
      [
        {
          ...parked[0]!,
          id: randomUUID(),
          type: 'EmailSendResumed',
          data: { email_id: emailId, parked_event_id: parked[0]!.id, resumed_at: new Date().toISOString() },
          metadata: newEventMetadata(randomUUID()),
        },
      ],
      ctx,
    );
    expect(await job()).toEqual([{ state: 'parked', attempts: 2 }]);
    await resume(tenantId);
    const resumed = (await readStreamOrEmpty(store, streamId('email_delivery', emailId), tenantId)).filter(
      (e) => e.type === 'EmailSendResumed',
    );
    await reactor.handle(resumed, ctx);
    await reactor.drain(ctx);
    expect(await job()).toEqual([{ state: 'done', attempts: 0 }]);
    for (const address of to) expect(await mailsTo(address, title), address).toHaveLength(1);
    expect(await delivered(tenantId, emailId)).toBe(3);
    real.close();
  });
});

const delivered = async (tenantId: string, emailId: string) =>
  (await readStreamOrEmpty(store, streamId('email_delivery', emailId), tenantId)).filter(
    (e) => e.type === 'EmailRecipientDelivered',
  ).length;

describe('the delivery queue', () => {
  it("tenant B's small campaign and test send finish while tenant A's big campaign is still sending", async () => {
    const tenantA = randomUUID();
    const tenantB = randomUUID();
    const big = Array.from({ length: 300 }, (_, i) => `big${i}@a.example.jp`);
    const a = await campaign(tenantA, big, '【A病院】ご案内');
    const reactor = createEmailDeliveryReactor({
      publicOrigin: 'https://renkei.example.jp',
      dataDir: dir,
      // 100 mails/s: A's campaign takes about 3 s.
      ratePerMinute: 6_000,
      transport: () => createMailTransport({ catcherPort: catcher.port, pool: true }),
    });
    const ctx = { db, store };
    await reactor.handle(a.sent, ctx);
    const draining = reactor.drain(ctx);
    while ((await delivered(tenantA, a.emailId)) < 30) await new Promise((r) => setTimeout(r, 20));

    // B sends after A is well under way: a small campaign, then a test of it.
    const b = await campaign(tenantB, ['x@b.example.jp', 'y@b.example.jp', 'z@b.example.jp'], '【B医院】ご案内');
    const test = await store.append(
      streamId('email', b.emailId),
      [
        {
          type: 'EmailTestSent',
          data: { email_id: b.emailId, test_id: randomUUID(), email_addresses: ['tester@b.example.jp'] },
          metadata: newEventMetadata(tenantB),
        },
      ],
      { expectedRevision: 'any' },
    );
    const testEvent = (await readStreamOrEmpty(store, streamId('email', b.emailId), tenantB)).filter(
      (e) => e.revision === test.revision,
    );
    await reactor.handle([...b.sent, ...testEvent], ctx);
    while ((await delivered(tenantB, b.emailId)) < 4) await new Promise((r) => setTimeout(r, 20));
    const aWhenBDone = await delivered(tenantA, a.emailId);
    expect(aWhenBDone).toBeLessThan(big.length - 100);

    await draining;
    expect(await delivered(tenantA, a.emailId)).toBe(big.length);
    const mails = await listMails(dir);
    expect(mails.filter((m) => m.subject === '【A病院】ご案内')).toHaveLength(big.length);
    expect(new Set(mails.filter((m) => m.subject === '【A病院】ご案内').map((m) => m.to)).size).toBe(big.length);
    expect(mails.filter((m) => m.subject === '【B医院】ご案内')).toHaveLength(3);
    expect(mails.filter((m) => m.subject === '[テスト送信] 【B医院】ご案内')).toHaveLength(1);
  });

  it("tenant B's campaign and test send are delivered while every mail of tenant A's big campaign is held", async () => {
    const tenantA = randomUUID();
    const tenantB = randomUUID();
    const big = Array.from({ length: 200 }, (_, i) => `held${i}@a.example.jp`);
    const a = await campaign(tenantA, big, '【A病院】止められた案内');
    // A's mails hang before the server sees them until the gate opens: however many of them the
    // queue has started, none finishes, so only a queue that keeps room for B delivers B.
    const real = createMailTransport({ catcherPort: catcher.port, pool: true });
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    let heldAtGate = 0;
    const transport = Object.create(real) as typeof real;
    transport.sendMail = (async (mail: Parameters<typeof real.sendMail>[0]) => {
      if (String((mail.envelope as { to?: unknown } | undefined)?.to).endsWith('@a.example.jp')) {
        heldAtGate++;
        await gate;
      }
      return real.sendMail(mail);
    }) as typeof real.sendMail;
    const concurrency = 8;
    const reactor = createEmailDeliveryReactor({
      publicOrigin: 'https://renkei.example.jp',
      dataDir: dir,
      ratePerMinute: 6_000_000,
      concurrency,
      transport: () => transport,
    });
    const ctx = { db, store };
    await reactor.handle(a.sent, ctx);
    const draining = reactor.drain(ctx);
    // Every slot of the queue is taken by A's held mails before B sends anything.
    while (heldAtGate < concurrency) await new Promise((r) => setTimeout(r, 10));

    const b = await campaign(tenantB, ['x@b.example.jp', 'y@b.example.jp', 'z@b.example.jp'], '【B医院】届く案内');
    const test = await store.append(
      streamId('email', b.emailId),
      [
        {
          type: 'EmailTestSent',
          data: { email_id: b.emailId, test_id: randomUUID(), email_addresses: ['tester@b.example.jp'] },
          metadata: newEventMetadata(tenantB),
        },
      ],
      { expectedRevision: 'any' },
    );
    const testEvent = (await readStreamOrEmpty(store, streamId('email', b.emailId), tenantB)).filter(
      (e) => e.revision === test.revision,
    );
    await reactor.handle([...b.sent, ...testEvent], ctx);
    // Without room for B this never ends (the test then fails by its time-out, not by a figure).
    while ((await delivered(tenantB, b.emailId)) < 4) await new Promise((r) => setTimeout(r, 20));
    expect((await mailsTo('x@b.example.jp', '【B医院】届く案内')).length).toBe(1);
    expect((await mailsTo('tester@b.example.jp', '[テスト送信] 【B医院】届く案内')).length).toBe(1);
    // A is still held: nothing of it delivered, and it took no more than its slots.
    expect(await delivered(tenantA, a.emailId)).toBe(0);
    expect(heldAtGate).toBe(concurrency);

    open();
    await draining;
    real.close();
    expect(await delivered(tenantA, a.emailId)).toBe(big.length);
    const mails = (await listMails(dir)).filter((m) => m.subject === '【A病院】止められた案内');
    expect(mails).toHaveLength(big.length);
    expect(new Set(mails.map((m) => m.to)).size).toBe(big.length);
    expect((await listMails(dir)).filter((m) => m.subject === '【B医院】届く案内')).toHaveLength(3);
  });

  it.each([1, 5, 10])(
    'a crash right after the server accepted a commit group of %i (outcomes not stored) resends those mails only, noted in doubt; nobody is skipped',
    async (commitGroup) => {
      const tenantId = randomUUID();
      const subject = `【ご案内】再開のテスト ${commitGroup}`;
      const list = Array.from({ length: 40 }, (_, i) => `crash${commitGroup}-${i}@example.jp`);
      const { emailId, sent } = await campaign(tenantId, list, subject);
      // The worst moment to die: a group of mails was accepted by the server and its events are not
      // stored. Everything of that run stops there (the lanes' other mails are never ended), as in a kill -9.
      let deliveredAppends = 0;
      const lost: string[] = [];
      // From the fifth group's append on, the process is dead: nothing of it is stored any more.
      const dying: EventStore = {
        ...store,
        append: (async (stream, events, options) => {
          if (events.some((e) => e.type === 'EmailRecipientDelivered') && ++deliveredAppends >= 5) {
            lost.push(...events.map((e) => (e.data as { email_address: string }).email_address));
            throw new Error('killed');
          }
          return store.append(stream, events, options);
        }) as EventStore['append'],
      };
      const first = createEmailDeliveryReactor({
        publicOrigin: 'https://renkei.example.jp',
        dataDir: dir,
        ratePerMinute: 60_000,
        maxAttempts: 1,
        commitGroup,
        transport: () =>
          createMailTransport({ catcherPort: catcher.port, pool: true, maxConnections: Math.max(5, commitGroup) }),
      });
      await first.handle(sent, { db, store });
      await first.drain({ db, store: dying });
      // The restarted worker (a new reactor, nothing in memory) takes the send up again.
      await sql`UPDATE email_delivery.jobs SET state = 'queued', attempts = 0 WHERE email_id = ${emailId}`.execute(
        db.kysely,
      );
      const second = createEmailDeliveryReactor({
        publicOrigin: 'https://renkei.example.jp',
        dataDir: dir,
        ratePerMinute: 60_000,
        commitGroup,
        transport: () =>
          createMailTransport({ catcherPort: catcher.port, pool: true, maxConnections: Math.max(5, commitGroup) }),
      });
      await second.drain({ db, store });

      const mails = (await listMails(dir)).filter((m) => m.subject === subject);
      const perAddress = new Map<string, number>();
      for (const m of mails) {
        const address = /<([^>]+)>/.exec(m.to)?.[1] ?? m.to;
        perAddress.set(address, (perAddress.get(address) ?? 0) + 1);
      }
      expect([...perAddress.keys()].sort()).toEqual([...list].sort());
      const twice = [...perAddress].filter(([, n]) => n > 1).map(([address]) => address);
      // Exactly the group whose outcomes were lost, and no more than the group's size. A lane may try
      // to store the same group's outcomes again before the dead run stops (under load it did): an
      // address counts once however many of its appends failed.
      expect(twice.sort()).toEqual([...new Set(lost)].sort());
      expect(twice.length).toBeGreaterThanOrEqual(1);
      expect(twice.length).toBeLessThanOrEqual(commitGroup);
      expect(await delivered(tenantId, emailId)).toBe(list.length);
      const { rows: doubt } = await sql<{ address: string }>`
        SELECT address FROM email_delivery.claims WHERE email_id = ${emailId} AND state = 'in_doubt'`.execute(
        db.kysely,
      );
      for (const address of twice) expect(doubt.map((r) => r.address)).toContain(address);
      // The doubt is bounded by the mails under way (20 lanes) and one claimed slice (10), not by the campaign.
      expect(doubt.length).toBeLessThanOrEqual(30);
      const { rows: job } = await sql<{ state: string; in_doubt: number }>`
        SELECT state, in_doubt FROM email_delivery.jobs WHERE email_id = ${emailId}`.execute(db.kysely);
      expect(job).toEqual([{ state: 'done', in_doubt: doubt.length }]);
      // The doubt is on the delivery stream for the report, once.
      const noted = (await readStreamOrEmpty(store, streamId('email_delivery', emailId), tenantId)).filter(
        (e) => e.type === 'EmailRecipientsInDoubt',
      );
      expect(noted).toHaveLength(1);
      expect((noted[0]!.data as { email_addresses: string[] }).email_addresses).toEqual(
        doubt.map((r) => r.address).sort(),
      );
    },
  );
});

describe('bounces', () => {
  it("reads a DSN sent to a recipient's VERP return path through the catcher: that recipient bounced, once", async () => {
    const projections = startProjections({ db, store, projections: [emailsProjection] });
    try {
      const tenantId = randomUUID();
      const { emailId, sent } = await campaign(tenantId);
      const transport = createMailTransport({ catcherPort: catcher.port });
      const reactor = createEmailDeliveryReactor({
        publicOrigin: 'https://renkei.example.jp',
        dataDir: dir,
        ratePerMinute: 60_000,
        transport: () => transport,
        bounceAddress: 'bounces@renkei.example.jp',
      });
      await reactor.handle(sent, { db, store });
      await reactor.drain({ db, store });
      const subject = '【ご案内】勉強会のお知らせ';
      // The last one: the other tests mailed the same addresses.
      const mail = (await mailsTo('b@example.jp', subject)).at(-1);
      expect(mail!.returnPath).toMatch(/^bounces\+[a-z2-7]{39}@renkei\.example\.jp$/);
      const other = (await mailsTo('c@example.jp', subject)).at(-1);
      expect(other!.returnPath).not.toBe(mail!.returnPath);

      // The recipient's server refuses the mail and reports to the envelope sender (RFC 3464).
      const dsn = {
        from: 'MAILER-DAEMON@mx.example.jp',
        to: mail!.returnPath!,
        subject: 'Undelivered Mail Returned to Sender',
        text: 'Your message could not be delivered.',
        attachments: [
          {
            contentType: 'message/delivery-status',
            content:
              'Reporting-MTA: dns; mx.example.jp\r\n\r\nFinal-Recipient: rfc822; b@example.jp\r\n' +
              'Action: failed\r\nStatus: 5.1.1\r\nDiagnostic-Code: smtp; 550 5.1.1 User unknown\r\n',
          },
        ],
      };
      await transport.sendMail({ ...dsn, envelope: { from: '', to: mail!.returnPath! } });
      // The same bounce twice (a resent DSN), and a forged VERP address: one event, nothing else.
      await transport.sendMail({ ...dsn, envelope: { from: '', to: mail!.returnPath! } });
      const forged = mail!.returnPath!.replace(/\+([a-z2-7])/, (_, c: string) => `+${c === 'a' ? 'b' : 'a'}`);
      await transport.sendMail({ ...dsn, to: forged, envelope: { from: '', to: forged } });
      // A bounce is not a caught mail of `pnpm ops mail`.
      expect((await listMails(dir)).filter((m) => m.subject === dsn.subject)).toHaveLength(0);

      // The campaign must be in the read model before its bounces can be placed.
      for (let i = 0; i < 200; i++) {
        const { rows } = await sql`SELECT 1 FROM rm.emails WHERE id = ${emailId}`.execute(db.kysely);
        if (rows.length > 0) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(await reactor.readBounces({ db, store })).toBe(2);
      expect(await reactor.readBounces({ db, store })).toBe(0);
      expect(fs.readdirSync(path.join(dir, 'mail', 'bounces'))).toEqual([]);
      const bounced = (await readStreamOrEmpty(store, streamId('email_delivery', emailId), tenantId)).filter(
        (e) => e.type === 'EmailRecipientBounced',
      );
      expect(bounced.map((e) => e.data)).toEqual([
        {
          email_id: emailId,
          email_address: 'b@example.jp',
          bounced_at: expect.any(String),
          status: '5.1.1',
          reason: '550 5.1.1 User unknown',
          permanent: true,
        },
      ]);
      transport.close();
    } finally {
      await projections.stop();
    }
  });
});
