import { z } from 'zod';
import { maxListedInvalidDestinations, type InvalidDestination } from '@renkei/contracts';
import { eventParser } from '../event-union.ts';
import { uuidV5 } from '../uuid-v5.ts';

/**
 * Email campaigns of a tenant. Stream `email-<uuid>`: the draft, its sending and its test sends
 * (the stream revision is the record's `version`). Per-recipient delivery goes to its own stream
 * `email_delivery-<uuid>` (same id), so a campaign of thousands does not make the draft's stream long.
 */
const uuid = z.string().uuid();

export const EmailRecipient = z.object({
  email_address: z.string(),
  name: z.string().nullable(),
  /** From the recipients file's 医療機関コード column, as written. */
  institution_code: z.string().nullable(),
  doctor_id: uuid.nullable(),
  medical_institution_id: uuid.nullable(),
});
export type EmailRecipient = z.infer<typeof EmailRecipient>;

export const InvalidEmailRecipient = z.object({ row: z.number().int(), value: z.string() });
export type InvalidEmailRecipient = z.infer<typeof InvalidEmailRecipient>;

/** The invalid rows an email names (the command's answer and the read model alike): the first ones. */
export function invalidDestinationsOf(list: readonly InvalidEmailRecipient[]): InvalidDestination[] {
  return list.slice(0, maxListedInvalidDestinations).map((r) => ({ row_number: r.row, value: r.value }));
}

export const EmailDraftSaved = z.object({
  email_id: uuid,
  title: z.string(),
  sender_name: z.string(),
  sender_email: z.string(),
  /** Sanitised HTML as written in the editor (CSS is inlined when the mail is built). */
  main_content: z.string(),
  attachment_id: uuid.nullable(),
  doctor_ids: z.array(uuid),
  /** Valid, deduplicated addresses (doctors' first, then the file's). */
  recipients: z.array(EmailRecipient),
  /** Rows of the recipients file whose address is not one. */
  invalid_recipients: z.array(InvalidEmailRecipient),
});
export type EmailDraftSaved = z.infer<typeof EmailDraftSaved>;

export const EmailDeleted = z.object({ email_id: uuid });
export type EmailDeleted = z.infer<typeof EmailDeleted>;

/** The campaign goes out: the worker delivers it to every recipient of the last draft. */
export const EmailSent = z.object({ email_id: uuid, sent_at: z.string() });
export type EmailSent = z.infer<typeof EmailSent>;

/** A test send: never counted in the figures. */
export const EmailTestSent = z.object({ email_id: uuid, test_id: uuid, email_addresses: z.array(z.string()) });
export type EmailTestSent = z.infer<typeof EmailTestSent>;

export const emailEventSchemas = {
  EmailCreated: EmailDraftSaved,
  EmailUpdated: EmailDraftSaved,
  EmailDeleted,
  EmailSent,
  EmailTestSent,
} as const;

export type EmailEvent =
  | { type: 'EmailCreated'; data: EmailDraftSaved }
  | { type: 'EmailUpdated'; data: EmailDraftSaved }
  | { type: 'EmailDeleted'; data: EmailDeleted }
  | { type: 'EmailSent'; data: EmailSent }
  | { type: 'EmailTestSent'; data: EmailTestSent };

export const emailAggregate = 'email';

/** A stored event of an email stream as its typed union; anything else throws. */
export const parseEmailEvent = eventParser(emailAggregate, emailEventSchemas);

/** One recipient's mail was accepted by the SMTP server (`test`: a test send, never counted). */
export const EmailRecipientDelivered = z.object({
  email_id: uuid,
  email_address: z.string(),
  delivered_at: z.string(),
  test: z.boolean(),
});
export type EmailRecipientDelivered = z.infer<typeof EmailRecipientDelivered>;

/** The recipient was not mailed: the address unsubscribed from the tenant's campaigns. */
export const EmailRecipientSkipped = z.object({
  email_id: uuid,
  email_address: z.string(),
  reason: z.enum(['unsubscribed']),
});
export type EmailRecipientSkipped = z.infer<typeof EmailRecipientSkipped>;

/** A recipient opened the mail (the pixel, or a click, which implies it). One event per recipient. */
export const EmailOpened = z.object({ email_id: uuid, email_address: z.string(), opened_at: z.string() });
export type EmailOpened = z.infer<typeof EmailOpened>;

/** A recipient followed a link of the mail. One event per recipient and link. */
export const EmailLinkClicked = z.object({
  email_id: uuid,
  email_address: z.string(),
  url: z.string(),
  clicked_at: z.string(),
});
export type EmailLinkClicked = z.infer<typeof EmailLinkClicked>;

/**
 * A recipient's mail came back: a bounce (a DSN, RFC 3464, or any message) reached the recipient's
 * own return path (VERP). `permanent`: a 5.x.x status, or no status to read (counted as not delivered);
 * false for a 4.x.x delay notice. One event per recipient: the first bounce is kept.
 */
export const EmailRecipientBounced = z.object({
  email_id: uuid,
  email_address: z.string(),
  bounced_at: z.string(),
  /** The DSN's Status (e.g. 5.1.1), null when the bounce carried none. */
  status: z.string().nullable(),
  /** The DSN's Diagnostic-Code or the first line of the bounce's text, at most 500 characters. */
  reason: z.string(),
  permanent: z.boolean(),
});
export type EmailRecipientBounced = z.infer<typeof EmailRecipientBounced>;

/**
 * A worker taking up a stopped send found these recipients claimed without an outcome: their mails
 * were prepared or on their way when the previous run stopped, and at most one commit group of them
 * (docs/decisions.md, "Email delivery throughput") was accepted by the server unrecorded. They are
 * mailed again, so one of them may get the mail twice; which one cannot be known without the
 * receiving server's logs. Campaign sends only (test sends are never reported).
 */
export const EmailRecipientsInDoubt = z.object({
  email_id: uuid,
  email_addresses: z.array(z.string()),
  noted_at: z.string(),
});
export type EmailRecipientsInDoubt = z.infer<typeof EmailRecipientsInDoubt>;

/**
 * The worker stopped a campaign's send (docs/decisions.md, "Parked email sends"): its attachment is
 * gone (nobody was mailed), or the SMTP server or the store kept failing (the recipients done keep
 * their outcome). It stays stopped until someone resumes it (`EmailSendResumed`).
 */
export const EmailSendParked = z.object({
  email_id: uuid,
  reason: z.enum(['attachment_missing', 'delivery_failed']),
  /** The last failure as the worker saw it (technical, at most 2,000 characters). */
  error: z.string(),
  parked_at: z.string(),
});
export type EmailSendParked = z.infer<typeof EmailSendParked>;

/** A user asked for a parked send to be tried again: the worker puts it back in the queue. */
export const EmailSendResumed = z.object({
  email_id: uuid,
  /** The `EmailSendParked` event it answers (its own id derives from it: a double click resumes once). */
  parked_event_id: uuid,
  resumed_at: z.string(),
});
export type EmailSendResumed = z.infer<typeof EmailSendResumed>;

/** Events of `email_delivery-<email id>`: outcomes of the send, then bounces, opens and clicks. */
export const emailDeliveryEventSchemas = {
  EmailRecipientDelivered,
  EmailRecipientSkipped,
  EmailOpened,
  EmailLinkClicked,
  EmailRecipientBounced,
  EmailRecipientsInDoubt,
  EmailSendParked,
  EmailSendResumed,
} as const;

/** The id of the resume of one parked send: the same however often it is asked for. */
export const emailSendResumedEventId = (parkedEventId: string): string =>
  uuidV5(emailDeliveryNamespace, `resume\u0000${parkedEventId}`);

export const emailDeliveryAggregate = 'email_delivery';

/**
 * The id of the delivery event of one recipient of one send: the same whoever records it and however
 * often, so a restarted worker cannot record a recipient twice (the store is idempotent on ids).
 */
export function emailDeliveryEventId(emailId: string, sendId: string, emailAddress: string): string {
  return uuidV5(emailDeliveryNamespace, `${emailId}\u0000${sendId}\u0000${emailAddress.toLowerCase()}`);
}

/** Never change: delivery event ids derived from it are stored. */
const emailDeliveryNamespace = '7c1f0b9e2d4a4e6b9a3c5d7e8f901234';

/** Addresses are one recipient whatever their case (spec: duplicates removed case-insensitively). */
export const emailAddressKey = (address: string): string => address.trim().toLowerCase();

/** A recipient's id in reports: stable for the campaign and the address (whatever its case). */
export const emailRecipientId = (emailId: string, address: string): string =>
  uuidV5(emailRecipientNamespace, `${emailId}\u0000${emailAddressKey(address)}`);

/** Never change: recipient ids derived from it are shown to clients. */
const emailRecipientNamespace = '4e2a9c7b1d3f4a5e8b6c0d9f1e2a3b4c';

/**
 * An address asked for no more campaigns of the tenant (the unsubscribe link or one-click header).
 * Stream `email_unsubscribes-<tenant id>`: one short stream per tenant, read whole before a campaign
 * goes out. The event id derives from the tenant and the address, so unsubscribing twice is one event.
 */
export const EmailUnsubscribed = z.object({ email_address: z.string(), email_id: uuid });
export type EmailUnsubscribed = z.infer<typeof EmailUnsubscribed>;

export const emailUnsubscribesAggregate = 'email_unsubscribes';

/** The one way to read the tenant's unsubscribe stream: an unknown type or shape throws, never a guess. */
export const parseEmailUnsubscribeEvent = eventParser(emailUnsubscribesAggregate, { EmailUnsubscribed });

export const emailUnsubscribedEventId = (tenantId: string, address: string): string =>
  uuidV5(emailDeliveryNamespace, `unsubscribe\u0000${tenantId}\u0000${emailAddressKey(address)}`);

/** The same set of doubtful recipients noted twice (a crash before the claims were marked) is one event. */
export const emailInDoubtEventId = (emailId: string, sendId: string, addresses: readonly string[]): string =>
  uuidV5(
    emailDeliveryNamespace,
    `in_doubt\u0000${emailId}\u0000${sendId}\u0000${addresses.map(emailAddressKey).sort().join('\u0000')}`,
  );

export const emailTrackingEventId = (emailId: string, address: string, what: string): string =>
  uuidV5(emailDeliveryNamespace, `track\u0000${emailId}\u0000${emailAddressKey(address)}\u0000${what}`);

/**
 * The communication (type email) a sent campaign leaves on one recipient institution's timeline: the
 * same id however often the send is repeated or resumed, so an institution never gets two.
 */
export const emailCommunicationId = (emailId: string, medicalInstitutionId: string): string =>
  uuidV5(emailDeliveryNamespace, `communication\u0000${emailId}\u0000${medicalInstitutionId}`);
