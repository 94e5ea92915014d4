import { randomUUID } from 'node:crypto';
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
import { startProjections } from '@renkei/projections';
import { createTestAuth, type TestAuth } from '@renkei/service-kit/testing';
import { buildQueryApp, queryProjections } from '../index.ts';

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
});

describe('email communications on timelines', () => {
  it("shows the campaign on the communication it left on an institution's timeline, and counts it as a communication", async () => {
    const tenantId = randomUUID();
    const [emailId, communicationId, institutionId, handId] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
    const at = '2026-11-20T01:00:00.000Z';
    await sql`
      INSERT INTO ref.medical_institutions (id, code, name, address, search_text)
      VALUES (${institutionId}, ${institutionId.slice(0, 10)}, '青葉クリニック', '静岡市', '青葉クリニック')`.execute(db.kysely);
    await record(tenantId, streamId('email', emailId), [
      draft(emailId, '研修会のご案内', ['a@example.jp']),
      { type: 'EmailSent', data: { email_id: emailId, sent_at: at } },
    ]);
    const fields = (id: string) => ({
      communication_id: id,
      medical_institution_id: institutionId,
      communication_type: 'email',
      acted_date: '2026-11-20',
      category: null,
      purpose: null,
      story: 'メール「研修会のご案内」を送信しました（この医療機関の送信先 1 件）',
      event_name: null,
      memo: '',
      other_memo: '',
      person_in_charge_hospital: null,
      attendee: null,
      is_doctor_attended: false,
      user_id: randomUUID(),
      attachment_ids: [],
      label_values: [],
      tasks: [],
    });
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
