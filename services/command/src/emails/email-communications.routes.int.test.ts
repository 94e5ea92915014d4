import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { featureKeys } from '@renkei/contracts';
import { createTestDatabase, type TestDatabase } from '@renkei/db';
import { communicationAggregate, emailCommunicationId, parseCommunicationEvent } from '@renkei/domain';
import {
  createPostgresEventStore,
  newEventMetadata,
  readStreamOrEmpty,
  streamId,
  type EventStore,
} from '@renkei/event-store';
import { generateInstitutionMaster, importInstitutionMaster } from '@renkei/institution-master';
import type { TestAuth } from '@renkei/service-kit/testing';
import { buildTestCommandApp } from '../testing.ts';

let db: TestDatabase;
let store: EventStore;
let app: FastifyInstance;
let testAuth: TestAuth;
let institutions: { id: string; code: string }[];

beforeAll(async () => {
  db = await createTestDatabase();
  store = await createPostgresEventStore(db);
  ({ app, testAuth } = await buildTestCommandApp(db, store));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'renkei-email-communications-'));
  await generateInstitutionMaster(path.join(dir, 'm.csv'), { count: 3, seed: 14 });
  await importInstitutionMaster(db, path.join(dir, 'm.csv'));
  fs.rmSync(dir, { recursive: true });
  ({ rows: institutions } = await sql<{ id: string; code: string }>`
    SELECT id, code FROM ref.medical_institutions ORDER BY code`.execute(db.kysely));
});

afterAll(async () => {
  await app?.close();
  await store?.close();
  await db?.close();
});

function multipart(json: unknown, file: string) {
  const boundary = '----renkei' + randomUUID();
  const payload = Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="stringified"\r\n\r\n${JSON.stringify(json)}\r\n` +
        `--${boundary}\r\nContent-Disposition: form-data; name="recipients_file"; filename="list.csv"\r\n\r\n`,
    ),
    Buffer.from(file),
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return { payload, contentType: `multipart/form-data; boundary=${boundary}` };
}

async function call(
  tenantId: string,
  accountId: string,
  method: 'POST',
  url: string,
  body?: ReturnType<typeof multipart>,
) {
  const token = await testAuth.token({
    tenantId,
    accountId,
    features: featureKeys.filter((f) => f !== 'email_sender_restricted'),
  });
  return app.inject({
    method,
    url,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': body.contentType } : {}) },
    ...(body ? { payload: body.payload } : {}),
  });
}

async function timelineOf(tenantId: string, emailId: string, institutionId: string) {
  const events = await readStreamOrEmpty(
    store,
    streamId(communicationAggregate, emailCommunicationId(emailId, institutionId)),
    tenantId,
  );
  return events.map(parseCommunicationEvent);
}

it('records one email communication per recipient institution, by the sender, once however often the send is repeated or resumed', async () => {
  const tenantId = randomUUID();
  const sender = randomUUID();
  const [first, second, third] = institutions as [
    (typeof institutions)[0],
    (typeof institutions)[0],
    (typeof institutions)[0],
  ];
  // A required label of the email type: a campaign's records are not held back by a form nobody fills.
  await store.append(
    streamId('communication_labels', tenantId),
    [
      {
        type: 'CommunicationLabelCreated',
        data: {
          label_id: randomUUID(),
          name: '反応',
          communication_type: 'email',
          component_type: 'text',
          description: '',
          selections: [],
          is_required: true,
        },
        metadata: newEventMetadata(tenantId),
      },
    ],
    { expectedRevision: 'any' },
  );
  const file =
    'メールアドレス,氏名,医療機関コード\n' +
    `a@example.jp,甲,${first.code}\nb@example.jp,乙,${first.code}\nc@example.jp,丙,${second.code}\n` +
    'd@example.jp,丁,0000000000\ne@example.jp,戊,\n';
  const created = await call(
    tenantId,
    sender,
    'POST',
    '/api/emails',
    multipart(
      {
        title: '研修会のご案内',
        sender_name: '地域連携室',
        sender_email: 'renkei@example.jp',
        main_content: '<p>本文</p>',
      },
      file,
    ),
  );
  expect(created.statusCode).toBe(201);
  const emailId: string = created.json().id;

  // The route died right after the campaign's event (before any record): the next send completes them.
  await store.append(
    streamId('email', emailId),
    [
      {
        type: 'EmailSent',
        data: { email_id: emailId, sent_at: '2026-11-24T15:30:00.000Z' },
        metadata: { ...newEventMetadata(tenantId), account_id: sender },
      },
    ],
    { expectedRevision: 'any' },
  );
  expect(await timelineOf(tenantId, emailId, first.id)).toEqual([]);

  const other = randomUUID();
  const resumed = await call(tenantId, other, 'POST', `/api/emails/${emailId}/send`);
  expect(resumed.statusCode).toBe(202);
  const again = await call(tenantId, other, 'POST', `/api/emails/${emailId}/send`);
  expect(again.statusCode).toBe(202);

  const one = await timelineOf(tenantId, emailId, first.id);
  expect(one).toHaveLength(1);
  expect(one[0]).toMatchObject({
    type: 'CommunicationCreated',
    data: {
      communication_type: 'email',
      medical_institution_id: first.id,
      // The Japanese day of the send (15:30 UTC is past midnight in Japan).
      acted_date: '2026-11-25',
      user_id: sender,
      email_id: emailId,
      label_values: [],
      story: 'メール「研修会のご案内」を送信しました（この医療機関の送信先 2 件）',
    },
  });
  const two = await timelineOf(tenantId, emailId, second.id);
  expect(two).toHaveLength(1);
  expect(two[0]!.data).toMatchObject({ story: expect.stringContaining('送信先 1 件') });
  // No recipient of the third institution, and an unknown code names none.
  expect(await timelineOf(tenantId, emailId, third.id)).toEqual([]);
  const { rows } = await sql<{ n: number }>`
    SELECT count(*)::int AS n FROM es.events
     WHERE tenant_id = ${tenantId} AND type = 'CommunicationCreated'`.execute(db.kysely);
  expect(rows[0]!.n).toBe(2);

  // Another tenant's send of this id reaches nothing.
  expect((await call(randomUUID(), other, 'POST', `/api/emails/${emailId}/send`)).statusCode).toBe(404);
});
