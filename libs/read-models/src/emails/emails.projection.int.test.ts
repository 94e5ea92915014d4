import { randomUUID } from 'node:crypto';
import { describe, it } from 'vitest';
import { emailRecipientId } from '@renkei/domain';
import { projectionTest } from '@renkei/projections/testing';
import { emailsProjection } from './emails.projection.ts';

const test = projectionTest(emailsProjection);

const draft = (email_id: string, title: string, addresses: string[]) => ({
  email_id,
  title,
  sender_name: '地域連携室',
  sender_email: 'renkei@example.jp',
  main_content: '<p>本文</p>',
  attachment_id: null,
  doctor_ids: [],
  recipients: addresses.map((email_address) => ({
    email_address,
    name: null,
    institution_code: null,
    doctor_id: null,
    medical_institution_id: null,
  })),
  invalid_recipients: [{ row: 9, value: 'x' }],
});

describe('emails projection', () => {
  it('keeps the last draft, its recipients, the send and counted deliveries (tests not counted), across batches', async () => {
    const [a, b] = [randomUUID(), randomUUID()];
    const sentAt = '2026-04-01T01:00:00.000Z';
    const later = '2026-04-01T02:00:00.000Z';
    const later2 = '2026-04-01T03:00:00.000Z';
    const scenario = test.given(
      [
        { type: 'EmailCreated', stream: `email-${a}`, data: draft(a, '初稿', ['x@example.jp', 'y@example.jp']) },
        { type: 'EmailUpdated', stream: `email-${a}`, data: draft(a, '改稿', ['X@example.jp', 'z@example.jp']) },
        { type: 'EmailCreated', stream: `email-${b}`, data: draft(b, '消す', ['x@example.jp']) },
      ],
      [
        { type: 'EmailSent', stream: `email-${a}`, data: { email_id: a, sent_at: sentAt } },
        {
          type: 'EmailTestSent',
          stream: `email-${a}`,
          data: { email_id: a, test_id: randomUUID(), email_addresses: ['me@example.jp'] },
        },
        { type: 'EmailDeleted', stream: `email-${b}`, data: { email_id: b } },
      ],
      [
        {
          type: 'EmailRecipientDelivered',
          stream: `email_delivery-${a}`,
          data: { email_id: a, email_address: 'X@example.jp', delivered_at: sentAt, test: false },
        },
        {
          type: 'EmailRecipientDelivered',
          stream: `email_delivery-${a}`,
          data: { email_id: a, email_address: 'z@example.jp', delivered_at: sentAt, test: true },
        },
        {
          type: 'EmailLinkClicked',
          stream: `email_delivery-${a}`,
          data: { email_id: a, email_address: 'x@EXAMPLE.jp', url: 'https://example.jp', clicked_at: later },
        },
        {
          type: 'EmailOpened',
          stream: `email_delivery-${a}`,
          data: { email_id: a, email_address: 'x@example.jp', opened_at: later2 },
        },
        {
          type: 'EmailRecipientSkipped',
          stream: `email_delivery-${a}`,
          data: { email_id: a, email_address: 'z@example.jp', reason: 'unsubscribed' },
        },
      ],
    );
    await scenario.thenRows('emails', [
      {
        tenant_id: test.tenantId,
        id: a,
        title: '改稿',
        status: 'sent',
        destination_count: 2,
        invalid_destination_count: 1,
        version: 3,
      },
    ]);
    await scenario.thenRows('email_recipients', [
      {
        email_id: a,
        id: emailRecipientId(a, 'x@example.jp'),
        address_key: 'x@example.jp',
        email_address: 'X@example.jp',
        sort_order: 0,
        delivered_at: new Date(sentAt),
        skipped_reason: null,
        opened_at: new Date(later),
        clicked_at: new Date(later),
      },
      {
        email_id: a,
        id: emailRecipientId(a, 'z@example.jp'),
        address_key: 'z@example.jp',
        email_address: 'z@example.jp',
        sort_order: 1,
        delivered_at: null,
        skipped_reason: 'unsubscribed',
        opened_at: null,
        clicked_at: null,
      },
    ]);
  });

  it('shows the last stop of a send until the resume that answers it, a resume of an older stop aside', async () => {
    const a = randomUUID();
    const [first, second] = [randomUUID(), randomUUID()];
    const at1 = '2026-04-01T01:00:00.000Z';
    const at2 = '2026-04-01T02:00:00.000Z';
    const stop = (id: string, at: string, reason: string, error: string) => ({
      id,
      type: 'EmailSendParked',
      stream: `email_delivery-${a}`,
      data: { email_id: a, reason, error, parked_at: at },
    });
    const resume = (parked: string) => ({
      type: 'EmailSendResumed',
      stream: `email_delivery-${a}`,
      data: { email_id: a, parked_event_id: parked, resumed_at: at2 },
    });
    const created = { type: 'EmailCreated', stream: `email-${a}`, data: draft(a, '案内', ['x@example.jp']) };
    const sent = { type: 'EmailSent', stream: `email-${a}`, data: { email_id: a, sent_at: at1 } };
    await test.given([created, sent], [stop(first, at1, 'delivery_failed', 'Error: 421 busy')]).thenRows('emails', [
      {
        id: a,
        parked_event_id: first,
        parked_reason: 'delivery_failed',
        parked_error: 'Error: 421 busy',
        parked_at: new Date(at1),
        version: 1,
      },
    ]);
    // Resumed, then stopped again in the same batch; a late resume of the first stop leaves the second.
    await test
      .given(
        [created, sent, stop(first, at1, 'delivery_failed', 'Error: 421 busy')],
        [resume(first), stop(second, at2, 'attachment_missing', 'MissingAttachmentError: gone')],
        [resume(first)],
      )
      .thenRows('emails', [
        { id: a, parked_event_id: second, parked_reason: 'attachment_missing', parked_at: new Date(at2) },
      ]);
    await test
      .given([created, sent, stop(first, at1, 'delivery_failed', 'Error: 421 busy'), resume(first)])
      .thenRows('emails', [{ id: a, parked_event_id: null, parked_reason: null, parked_error: null, parked_at: null }]);
  });
});
