import { randomUUID } from 'node:crypto';
import iconv from 'iconv-lite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { defaultResources, featureKeys } from '@renkei/contracts';
import { createTestDatabase, type TestDatabase } from '@renkei/db';
import type { EmailEvent } from '@renkei/domain';
import {
  createPostgresEventStore,
  formatPosition,
  newEventMetadata,
  streamId,
  type EventStore,
} from '@renkei/event-store';
import { createPostgresFileStorage } from '@renkei/file-storage';
import { startProjections } from '@renkei/projections';
import { createTestAuth, type TestAuth } from '@renkei/service-kit/testing';
import { buildQueryApp, queryProjections } from '../index.ts';
import { blankCommunication } from '@renkei/domain/testing';

let db: TestDatabase;
let store: EventStore;
let app: FastifyInstance;
let testAuth: TestAuth;
let projections: { stop(): Promise<void> };

beforeAll(async () => {
  db = await createTestDatabase();
  store = await createPostgresEventStore(db);
  projections = startProjections({ db, store, projections: queryProjections });
  testAuth = await createTestAuth({ audience: defaultResources.query });
  app = await buildQueryApp({
    db,
    auth: testAuth.auth,
    logger: false,
    rateLimit: false,
    underPressure: false,
    minPositionTimeoutMs: 10_000,
  });
});

afterAll(async () => {
  await app?.close();
  await projections?.stop();
  await store?.close();
  await db?.close();
});

async function record(tenantId: string, stream: string, events: { type: string; data: unknown }[]) {
  const result = await store.append(
    stream,
    events.map((e) => ({ ...e, metadata: newEventMetadata(tenantId) })),
    { expectedRevision: 'any' },
  );
  return formatPosition(result.position);
}

async function get(tenantId: string, url: string, position: string) {
  const token = await testAuth.token({ tenantId, features: featureKeys });
  return app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}`, 'x-min-position': position } });
}

const draft = (email_id: string, title: string, addresses: string[]): EmailEvent => ({
  type: 'EmailCreated',
  data: {
    email_id,
    title,
    sender_name: '地域連携室',
    sender_email: 'renkei@example.jp',
    main_content: '<p>本文</p>',
    attachment_id: null,
    doctor_ids: [],
    recipients: addresses.map((email_address, i) => ({
      email_address,
      name: `受信者${i}`,
      institution_code: null,
      doctor_id: null,
      medical_institution_id: null,
    })),
    invalid_recipients: [{ row: 5, value: 'bad' }],
  },
});

describe('email queries', () => {
  it('lists by status, shows one email, its stats and per-recipient report; another tenant gets 404', async () => {
    const tenantId = randomUUID();
    const [sentId, draftId] = [randomUUID(), randomUUID()];
    const at = new Date().toISOString();
    await record(tenantId, streamId('email', draftId), [draft(draftId, '下書き', ['c@example.jp'])]);
    await record(tenantId, streamId('email', sentId), [
      draft(sentId, '送信済み', ['a@example.jp', 'b@example.jp']),
      { type: 'EmailSent', data: { email_id: sentId, sent_at: at } },
    ]);
    const position = await record(tenantId, streamId('email_delivery', sentId), [
      {
        type: 'EmailRecipientDelivered',
        data: { email_id: sentId, email_address: 'a@example.jp', delivered_at: at, test: false },
      },
      {
        type: 'EmailRecipientDelivered',
        data: { email_id: sentId, email_address: 'b@example.jp', delivered_at: at, test: true },
      },
    ]);

    const unsent = await get(tenantId, '/api/emails?status=unsent', position);
    expect(unsent.statusCode, unsent.body).toBe(200);
    expect(unsent.json().data.map((e: { title: string }) => e.title)).toEqual(['下書き']);
    expect(unsent.json().meta.total_count).toBe(1);
    const all = await get(tenantId, '/api/emails', position);
    expect(all.json().meta.total_count).toBe(2);

    const one = await get(tenantId, `/api/emails/${sentId}`, position);
    expect(one.json()).toMatchObject({
      id: sentId,
      status: 'sent',
      destination_count: 2,
      invalid_destination_count: 1,
      invalid_destinations: [{ row_number: 5, value: 'bad' }],
      sent_at: at,
    });

    const stats = await get(tenantId, `/api/emails/${sentId}/stats`, position);
    expect(stats.json()).toEqual({
      destination_count: 2,
      invalid_destination_count: 1,
      delivered_count: 1,
      opened_count: 0,
      clicked_count: 0,
      delivered_rate: 0.5,
      opened_rate: 0,
      clicked_rate: 0,
      in_doubt_count: 0,
    });

    const reports = await get(tenantId, `/api/emails/${sentId}/reports?per_page=1&page=2`, position);
    expect(reports.json()).toMatchObject({
      data: [{ email_address: 'b@example.jp', name: '受信者1', delivered: false, opened: false, clicked: false }],
      meta: { total_count: 2, page: 2, per_page: 1, total_pages: 2 },
    });

    const other = randomUUID();
    for (const url of [`/api/emails/${sentId}`, `/api/emails/${sentId}/stats`, `/api/emails/${sentId}/reports`])
      expect((await get(other, url, position)).statusCode, url).toBe(404);
    expect((await get(other, '/api/emails', position)).json().meta.total_count).toBe(0);
  });

  it('shows a stopped send in the list and the email, with its reason and error, until it is resumed', async () => {
    const tenantId = randomUUID();
    const emailId = randomUUID();
    const at = new Date().toISOString();
    await record(tenantId, streamId('email', emailId), [
      draft(emailId, '止まった案内', ['a@example.jp']),
      { type: 'EmailSent', data: { email_id: emailId, sent_at: at } },
    ]);
    const stopId = randomUUID();
    const stopped = await store.append(
      streamId('email_delivery', emailId),
      [
        {
          id: stopId,
          type: 'EmailSendParked',
          data: { email_id: emailId, reason: 'delivery_failed', error: 'Error: 421 busy', parked_at: at },
          metadata: newEventMetadata(tenantId),
        },
      ],
      { expectedRevision: 'any' },
    );
    const position = formatPosition(stopped.position);
    const stop = { reason: 'delivery_failed', error: 'Error: 421 busy', stopped_at: at };
    expect((await get(tenantId, `/api/emails/${emailId}`, position)).json().delivery_stopped).toEqual(stop);
    const listed = (await get(tenantId, '/api/emails?status=sent', position)).json().data;
    expect(listed.map((e: { delivery_stopped: unknown }) => e.delivery_stopped)).toEqual([stop]);
    expect((await get(randomUUID(), `/api/emails/${emailId}`, position)).statusCode).toBe(404);

    const resumed = await record(tenantId, streamId('email_delivery', emailId), [
      { type: 'EmailSendResumed', data: { email_id: emailId, parked_event_id: stopId, resumed_at: at } },
    ]);
    expect((await get(tenantId, `/api/emails/${emailId}`, resumed)).json().delivery_stopped).toBeNull();
  });

  it('answers null, never 0, for a rate with nothing to divide by: an unsent draft, a send with nothing delivered', async () => {
    const tenantId = randomUUID();
    const [draftId, sendingId] = [randomUUID(), randomUUID()];
    const at = new Date().toISOString();
    await record(tenantId, streamId('email', draftId), [draft(draftId, '下書き', ['a@example.jp', 'b@example.jp'])]);
    // A test send of the draft is no delivery of the campaign.
    await record(tenantId, streamId('email_delivery', draftId), [
      {
        type: 'EmailRecipientDelivered',
        data: { email_id: draftId, email_address: 'a@example.jp', delivered_at: at, test: true },
      },
    ]);
    const position = await record(tenantId, streamId('email', sendingId), [
      draft(sendingId, '送信中', ['a@example.jp', 'b@example.jp']),
      { type: 'EmailSent', data: { email_id: sendingId, sent_at: at } },
    ]);

    const unsent = await get(tenantId, `/api/emails/${draftId}/stats`, position);
    expect(unsent.statusCode, unsent.body).toBe(200);
    expect(unsent.json()).toMatchObject({
      destination_count: 2,
      delivered_count: 0,
      delivered_rate: null,
      opened_rate: null,
      clicked_rate: null,
    });
    // Sent, none delivered yet: 0 of the destinations is a figure; opens of nothing delivered are not.
    const sending = await get(tenantId, `/api/emails/${sendingId}/stats`, position);
    expect(sending.json()).toMatchObject({
      destination_count: 2,
      delivered_count: 0,
      delivered_rate: 0,
      opened_rate: null,
      clicked_rate: null,
    });
  });
});

describe('email communications on timelines', () => {
  it("shows the campaign on the communication it left on an institution's timeline, and counts it as a communication", async () => {
    const tenantId = randomUUID();
    const [emailId, communicationId, institutionId, handId] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
    const at = '2026-11-20T01:00:00.000Z';
    await sql`
      INSERT INTO ref.medical_institutions (id, code, name, address, search_text)
      VALUES (${institutionId}, ${institutionId.slice(0, 10)}, '青葉クリニック', '静岡市', '青葉クリニック')`.execute(
      db.kysely,
    );
    await record(tenantId, streamId('email', emailId), [
      draft(emailId, '研修会のご案内', ['a@example.jp']),
      { type: 'EmailSent', data: { email_id: emailId, sent_at: at } },
    ]);
    const fields = (id: string) =>
      blankCommunication(
        {
          communication_id: id,
          medical_institution_id: institutionId,
          user_id: randomUUID(),
          acted_date: '2026-11-20',
        },
        {
          communication_type: 'email',
          story: 'メール「研修会のご案内」を送信しました（この医療機関の送信先 1 件）',
          tasks: [],
        },
      );
    await record(tenantId, streamId('communication', communicationId), [
      { type: 'CommunicationCreated', data: { ...fields(communicationId), email_id: emailId } },
    ]);
    const position = await record(tenantId, streamId('communication', handId), [
      { type: 'CommunicationCreated', data: { ...fields(handId), acted_date: '2026-11-19' } },
    ]);
    const token = await testAuth.token({ tenantId, features: featureKeys });
    const search = (tenant: string, t: string) =>
      app.inject({
        method: 'POST',
        url: `/api/medical_institutions/${institutionId}/communications/search_results`,
        headers: { authorization: `Bearer ${t}`, 'x-min-position': position },
        payload: {},
      });
    const res = await search(tenantId, token);
    expect(res.statusCode, res.body).toBe(200);
    const byId = new Map(res.json().data.map((c: { id: string }) => [c.id, c]));
    expect(byId.get(communicationId)).toMatchObject({
      communication_type: 'email',
      email: { id: emailId, title: '研修会のご案内' },
    });
    expect(byId.get(handId)).toMatchObject({ email: null });

    // Visit effectiveness counts the email's day like any communication of the chosen types.
    const effectiveness = await app.inject({
      method: 'POST',
      url: '/api/data_analysis/effectiveness_verification/communications',
      headers: { authorization: `Bearer ${token}`, 'x-min-position': position },
      payload: {
        period: { from: '2026-11-01', to: '2026-11-30' },
        comparison_period: { from: '2025-11-01', to: '2025-11-30' },
        communication_types: ['email'],
      },
    });
    expect(effectiveness.statusCode, effectiveness.body).toBe(200);
    expect(effectiveness.json().data).toEqual([expect.objectContaining({ communication_count: 2 })]);
  });
});

describe('email report additions', () => {
  it('filters recipients, tells bounced and unsubscribed apart from delivered, charts hits, exports CSV', async () => {
    const tenantId = randomUUID();
    const emailId = randomUUID();
    const sentAt = '2026-11-20T00:30:00.000Z';
    const at = (minutes: number) => new Date(Date.parse(sentAt) + minutes * 60_000).toISOString();
    const addresses = ['a@example.jp', 'b@example.jp', 'c@example.jp', 'd@example.jp', 'e@example.jp'];
    await record(tenantId, streamId('email', emailId), [
      draft(emailId, '研修会のご案内', addresses),
      { type: 'EmailSent', data: { email_id: emailId, sent_at: sentAt } },
    ]);
    const delivered = (address: string) => ({
      type: 'EmailRecipientDelivered',
      data: { email_id: emailId, email_address: address, delivered_at: at(1), test: false },
    });
    await record(tenantId, streamId('email_delivery', emailId), [
      ...addresses.slice(0, 4).map(delivered),
      {
        type: 'EmailRecipientSkipped',
        data: { email_id: emailId, email_address: 'e@example.jp', reason: 'unsubscribed' },
      },
      { type: 'EmailOpened', data: { email_id: emailId, email_address: 'a@example.jp', opened_at: at(5) } },
      {
        type: 'EmailLinkClicked',
        data: { email_id: emailId, email_address: 'A@example.jp', url: 'https://example.jp/', clicked_at: at(70) },
      },
      { type: 'EmailOpened', data: { email_id: emailId, email_address: 'c@example.jp', opened_at: at(130) } },
      {
        type: 'EmailRecipientBounced',
        data: {
          email_id: emailId,
          email_address: 'b@example.jp',
          bounced_at: at(3),
          status: '5.1.1',
          reason: 'User unknown',
          permanent: true,
        },
      },
      {
        // A delay notice is no bounce.
        type: 'EmailRecipientBounced',
        data: {
          email_id: emailId,
          email_address: 'd@example.jp',
          bounced_at: at(3),
          status: '4.4.1',
          reason: 'try again',
          permanent: false,
        },
      },
      // A crash left d's mail without its outcome: mailed again (delivered above), maybe twice.
      {
        type: 'EmailRecipientsInDoubt',
        data: { email_id: emailId, email_addresses: ['d@example.jp'], noted_at: at(2) },
      },
    ]);
    const position = await record(tenantId, streamId('email_unsubscribes', tenantId), [
      { type: 'EmailUnsubscribed', data: { email_address: 'C@example.jp', email_id: emailId } },
    ]);

    const filtered = async (filter: string) => {
      const res = await get(tenantId, `/api/emails/${emailId}/reports?filter=${filter}`, position);
      expect(res.statusCode, res.body).toBe(200);
      return {
        emails: res.json().data.map((r: { email_address: string }) => r.email_address),
        total: res.json().meta.total_count,
      };
    };
    expect(await filtered('opened')).toEqual({ emails: ['a@example.jp', 'c@example.jp'], total: 2 });
    expect(await filtered('clicked')).toEqual({ emails: ['a@example.jp'], total: 1 });
    expect(await filtered('bounced')).toEqual({ emails: ['b@example.jp'], total: 1 });
    expect(await filtered('unsubscribed')).toEqual({ emails: ['c@example.jp', 'e@example.jp'], total: 2 });
    expect(await filtered('in_doubt')).toEqual({ emails: ['d@example.jp'], total: 1 });
    expect((await get(tenantId, `/api/emails/${emailId}/reports?filter=read`, position)).statusCode).toBe(422);

    const all = (await get(tenantId, `/api/emails/${emailId}/reports`, position)).json();
    expect(all.data[1]).toMatchObject({
      email_address: 'b@example.jp',
      delivered: false,
      bounced: true,
      bounce_reason: '5.1.1 User unknown',
    });
    expect(all.data[3]).toMatchObject({
      email_address: 'd@example.jp',
      delivered: true,
      bounced: false,
      delivery_in_doubt: true,
    });
    expect(all.data[0]).toMatchObject({ delivery_in_doubt: false });
    expect(all.data[0]).toMatchObject({ opened_at: at(5), clicked_at: at(70) });

    const stats = (await get(tenantId, `/api/emails/${emailId}/stats`, position)).json();
    expect(stats).toMatchObject({ delivered_count: 3, opened_count: 2, clicked_count: 1, in_doubt_count: 1 });

    // First hits only: a's click after its open is no second open.
    const timeline = await get(tenantId, `/api/emails/${emailId}/timeline`, position);
    expect(timeline.statusCode, timeline.body).toBe(200);
    expect(timeline.json()).toEqual({
      sent_at: sentAt,
      data: [
        {
          at: '2026-11-20T00:00:00.000Z',
          unit: 'hour',
          opened_count: 1,
          clicked_count: 0,
          opened_total: 1,
          clicked_total: 0,
        },
        {
          at: '2026-11-20T01:00:00.000Z',
          unit: 'hour',
          opened_count: 0,
          clicked_count: 1,
          opened_total: 1,
          clicked_total: 1,
        },
        {
          at: '2026-11-20T02:00:00.000Z',
          unit: 'hour',
          opened_count: 1,
          clicked_count: 0,
          opened_total: 2,
          clicked_total: 1,
        },
      ],
    });

    const csv = await get(
      tenantId,
      `/api/emails/${emailId}/reports/export?filter=bounced&encoding=shift_jis`,
      position,
    );
    expect(csv.statusCode).toBe(200);
    expect(csv.headers['content-type']).toContain('Shift_JIS');
    expect(iconv.decode(csv.rawPayload, 'cp932').split('\r\n')).toEqual([
      'メールアドレス,氏名,医療機関,配信,開封,クリック,不達,不達理由,配信停止,開封日時,クリック日時,配信結果不明',
      'b@example.jp,受信者1,,,,,○,5.1.1 User unknown,,,,',
      '',
    ]);
    const utf8 = await get(tenantId, `/api/emails/${emailId}/reports/export`, position);
    expect(utf8.body.startsWith('\ufeffメールアドレス')).toBe(true);
    expect(utf8.body).toContain('a@example.jp,受信者0,,○,○,○,,,,2026-11-20 09:35,2026-11-20 10:40,\r\n');
    expect(utf8.body).toContain('d@example.jp,受信者3,,○,,,,,,,,○\r\n');

    const other = randomUUID();
    for (const url of [`/api/emails/${emailId}/timeline`, `/api/emails/${emailId}/reports/export`])
      expect((await get(other, url, position)).statusCode, url).toBe(404);
  });
});

describe('email attachments', () => {
  it("answers the attachment's name, size and signed link from the file storage, in the list and one email", async () => {
    const tenantId = randomUUID();
    const storage = createPostgresFileStorage(db);
    const file = await storage.put(
      {
        id: randomUUID(),
        tenantId,
        filename: '勉強会のご案内.pdf',
        contentType: 'application/pdf',
        createdBy: randomUUID(),
      },
      [Buffer.from('%PDF-1.4\n%%EOF\n')],
    );
    const [withFile, gone] = [randomUUID(), randomUUID()];
    const attached = (id: string, attachmentId: string): EmailEvent => {
      const event = draft(id, `添付-${id}`, ['a@example.jp']);
      return { ...event, data: { ...event.data, attachment_id: attachmentId } } as EmailEvent;
    };
    await record(tenantId, streamId('email', withFile), [attached(withFile, file.id)]);
    // An id naming no stored file (never validated before attachments were built): no name, no link.
    const position = await record(tenantId, streamId('email', gone), [attached(gone, randomUUID())]);

    const one = await get(tenantId, `/api/emails/${withFile}`, position);
    expect(one.statusCode, one.body).toBe(200);
    expect(one.json()).toMatchObject({
      attachment_id: file.id,
      attachment_name: '勉強会のご案内.pdf',
      attachment_size: 15,
      attachment_url: expect.stringMatching(new RegExp(`^/files/${file.id}\\?expires=\\d+&signature=`)),
    });
    const list = await get(tenantId, '/api/emails', position);
    const byId = new Map((list.json().data as { id: string; attachment_name: string | null }[]).map((e) => [e.id, e]));
    expect(byId.get(withFile)).toMatchObject({ attachment_name: '勉強会のご案内.pdf' });
    expect(byId.get(gone)).toMatchObject({ attachment_name: null, attachment_size: null, attachment_url: null });
  });
});
