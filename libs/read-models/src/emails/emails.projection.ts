import { sql } from 'kysely';
import { defineProjection } from '@renkei/projections';
import {
  CommunicationCreated,
  EmailUnsubscribed,
  emailAddressKey,
  emailDeliveryEventSchemas,
  emailEventSchemas,
  emailRecipientId,
  eventDecoder,
  invalidDestinationsOf,
  type EmailDraftSaved,
} from '@renkei/domain';
import { createTables, tableNames } from '../shared/table.ts';
import { emailCommunicationsTable, emailRecipientsTable, emailsTable } from './emails.tables.ts';

// Of a communication, the projection keeps only its link to a campaign (hand-entered ones have none).
const decode = eventDecoder({
  ...emailEventSchemas,
  ...emailDeliveryEventSchemas,
  CommunicationCreated,
  EmailUnsubscribed,
});

interface Draft {
  tenant_id: string;
  draft: EmailDraftSaved;
  account_id: string | null;
  at: Date;
}

const key = (tenantId: string, emailId: string) => `${tenantId}:${emailId}`;

/**
 * `rm.emails` and `rm.email_recipients`: the campaigns and, per recipient, delivery. A batch is
 * folded per email first and written with a fixed number of set-based statements; delivery events
 * (thousands per campaign) are one UPDATE per kind. Test sends only move the version.
 */
export const emailsProjection = defineProjection({
  name: 'emails',
  // v2: bounces, unsubscribes per campaign, and the communications a campaign left on timelines.
  // v3: recipients in doubt after a crash of the delivery (`in_doubt_at`).
  // v5: parked sends (`parked_*`), so the screens show a stopped send and offer to resume it.
  version: 5,
  eventTypes: decode.types,
  tables: tableNames([emailsTable, emailRecipientsTable, emailCommunicationsTable]),
  setup: (trx, t) => createTables(trx, [emailsTable, emailRecipientsTable, emailCommunicationsTable], t),
  async handle(trx, events, t) {
    const drafts = new Map<string, Draft>();
    const sent = new Map<string, { tenant_id: string; id: string; sent_at: string }>();
    const versions = new Map<string, { tenant_id: string; id: string; version: number; at: Date }>();
    const deleted = new Map<string, { tenant_id: string; id: string }>();
    const delivered: { tenant_id: string; email_id: string; address_key: string; at: string }[] = [];
    const skipped: { tenant_id: string; email_id: string; address_key: string; reason: string }[] = [];
    // A click implies the mail was opened (images may be blocked): both go to `opened`.
    const opened: { tenant_id: string; email_id: string; address_key: string; at: string }[] = [];
    const clicked: { tenant_id: string; email_id: string; address_key: string; at: string }[] = [];
    const bounced: {
      tenant_id: string;
      email_id: string;
      address_key: string;
      at: string;
      status: string | null;
      reason: string;
    }[] = [];
    const communications: { tenant_id: string; communication_id: string; email_id: string }[] = [];
    const unsubscribed: { tenant_id: string; email_id: string; address_key: string; at: string }[] = [];
    const inDoubt: { tenant_id: string; email_id: string; address_key: string; at: string }[] = [];
    // The last stop of each email in the batch; resumes clear the stop they answer, after the stops.
    const parked = new Map<
      string,
      { tenant_id: string; id: string; event_id: string; reason: string; error: string; at: string }
    >();
    const resumed: { tenant_id: string; id: string; parked_event_id: string }[] = [];
    for (const recorded of events) {
      const event = decode(recorded);
      const tenantId = recorded.metadata.tenant_id;
      if (event.type === 'CommunicationCreated') {
        if (event.data.email_id)
          communications.push({
            tenant_id: tenantId,
            communication_id: event.data.communication_id,
            email_id: event.data.email_id,
          });
        continue;
      }
      if (event.type === 'EmailUnsubscribed') {
        unsubscribed.push({
          tenant_id: tenantId,
          email_id: event.data.email_id,
          address_key: emailAddressKey(event.data.email_address),
          at: recorded.created_at.toISOString(),
        });
        continue;
      }
      const k = key(tenantId, event.data.email_id);
      const bump = () =>
        versions.set(k, {
          tenant_id: tenantId,
          id: event.data.email_id,
          version: recorded.revision,
          at: recorded.created_at,
        });
      switch (event.type) {
        case 'EmailCreated':
        case 'EmailUpdated': {
          const first = drafts.get(k);
          drafts.set(k, {
            tenant_id: tenantId,
            draft: event.data,
            account_id: first?.account_id ?? recorded.metadata.account_id,
            at: first?.at ?? recorded.created_at,
          });
          bump();
          break;
        }
        case 'EmailSent':
          sent.set(k, { tenant_id: tenantId, id: event.data.email_id, sent_at: event.data.sent_at });
          bump();
          break;
        case 'EmailTestSent':
          bump();
          break;
        case 'EmailDeleted':
          deleted.set(k, { tenant_id: tenantId, id: event.data.email_id });
          break;
        case 'EmailRecipientDelivered':
          if (!event.data.test)
            delivered.push({
              tenant_id: tenantId,
              email_id: event.data.email_id,
              address_key: emailAddressKey(event.data.email_address),
              at: event.data.delivered_at,
            });
          break;
        case 'EmailRecipientSkipped':
          skipped.push({
            tenant_id: tenantId,
            email_id: event.data.email_id,
            address_key: emailAddressKey(event.data.email_address),
            reason: event.data.reason,
          });
          break;
        case 'EmailOpened':
          opened.push({
            tenant_id: tenantId,
            email_id: event.data.email_id,
            address_key: emailAddressKey(event.data.email_address),
            at: event.data.opened_at,
          });
          break;
        case 'EmailLinkClicked': {
          const hit = {
            tenant_id: tenantId,
            email_id: event.data.email_id,
            address_key: emailAddressKey(event.data.email_address),
            at: event.data.clicked_at,
          };
          opened.push(hit);
          clicked.push(hit);
          break;
        }
        case 'EmailRecipientBounced':
          // A delay notice (4.x.x) is no failure: the server is still trying.
          if (event.data.permanent)
            bounced.push({
              tenant_id: tenantId,
              email_id: event.data.email_id,
              address_key: emailAddressKey(event.data.email_address),
              at: event.data.bounced_at,
              status: event.data.status,
              reason: event.data.reason,
            });
          break;
        case 'EmailRecipientsInDoubt':
          for (const address of event.data.email_addresses)
            inDoubt.push({
              tenant_id: tenantId,
              email_id: event.data.email_id,
              address_key: emailAddressKey(address),
              at: event.data.noted_at,
            });
          break;
        case 'EmailSendParked':
          parked.set(k, {
            tenant_id: tenantId,
            id: event.data.email_id,
            event_id: recorded.id,
            reason: event.data.reason,
            error: event.data.error,
            at: event.data.parked_at,
          });
          break;
        case 'EmailSendResumed':
          resumed.push({ tenant_id: tenantId, id: event.data.email_id, parked_event_id: event.data.parked_event_id });
          break;
        default: {
          const never: never = event;
          throw new Error(`emails projection: unexpected event ${JSON.stringify(never)}`);
        }
      }
    }
    const emails = sql.table(t.emails);
    const recipients = sql.table(t.email_recipients);
    const draftRows = [...drafts.values()];
    if (draftRows.length > 0) {
      // A draft saved again keeps its creator and creation time (`created_*` are not updated).
      await sql`
        INSERT INTO ${emails} AS cur (tenant_id, id, title, status, destination_count, invalid_destination_count,
          invalid_destinations, sender_name, sender_email, main_content, attachment_id, doctor_ids, created_by, created_at, updated_at, version)
        SELECT u.tenant_id, u.id, u.title, 'unsent', u.destination_count, u.invalid_destination_count,
               u.invalid_destinations, u.sender_name,
               u.sender_email, u.main_content, u.attachment_id, u.doctor_ids, u.created_by, u.created_at, u.created_at, -1
          FROM jsonb_to_recordset(${JSON.stringify(
            draftRows.map((d) => ({
              tenant_id: d.tenant_id,
              id: d.draft.email_id,
              title: d.draft.title,
              destination_count: d.draft.recipients.length,
              invalid_destination_count: d.draft.invalid_recipients.length,
              invalid_destinations: invalidDestinationsOf(d.draft.invalid_recipients),
              sender_name: d.draft.sender_name,
              sender_email: d.draft.sender_email,
              main_content: d.draft.main_content,
              attachment_id: d.draft.attachment_id,
              doctor_ids: d.draft.doctor_ids,
              created_by: d.account_id,
              created_at: d.at.toISOString(),
            })),
          )}::jsonb) AS u(tenant_id uuid, id uuid, title text, destination_count int, invalid_destination_count int,
               invalid_destinations jsonb, sender_name text, sender_email text, main_content text, attachment_id uuid, doctor_ids uuid[], created_by uuid, created_at timestamptz)
        ON CONFLICT (tenant_id, id) DO UPDATE SET
          title = excluded.title,
          destination_count = excluded.destination_count,
          invalid_destination_count = excluded.invalid_destination_count,
          invalid_destinations = excluded.invalid_destinations,
          sender_name = excluded.sender_name,
          sender_email = excluded.sender_email,
          main_content = excluded.main_content,
          attachment_id = excluded.attachment_id,
          doctor_ids = excluded.doctor_ids
      `.execute(trx);
      // The recipients are the last draft's: replaced whole (a draft is never delivered to).
      await sql`
        DELETE FROM ${recipients} AS cur
         USING unnest(${sql.val(draftRows.map((d) => d.tenant_id))}::uuid[], ${sql.val(draftRows.map((d) => d.draft.email_id))}::uuid[])
               AS d(tenant_id, id)
         WHERE cur.tenant_id = d.tenant_id AND cur.email_id = d.id
      `.execute(trx);
      const rows = draftRows.flatMap((d) =>
        d.draft.recipients.map((r, i) => ({
          tenant_id: d.tenant_id,
          email_id: d.draft.email_id,
          address_key: emailAddressKey(r.email_address),
          id: emailRecipientId(d.draft.email_id, r.email_address),
          sort_order: i,
          email_address: r.email_address,
          name: r.name,
          doctor_id: r.doctor_id,
          medical_institution_id: r.medical_institution_id,
        })),
      );
      if (rows.length > 0)
        await sql`
          INSERT INTO ${recipients} (tenant_id, email_id, address_key, id, sort_order, email_address, name, doctor_id,
            medical_institution_id)
          SELECT * FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS r(tenant_id uuid, email_id uuid,
            address_key text, id uuid, sort_order int, email_address text, name text, doctor_id uuid, medical_institution_id uuid)
          ON CONFLICT DO NOTHING
        `.execute(trx);
    }
    const sentRows = [...sent.values()];
    if (sentRows.length > 0)
      await sql`
        UPDATE ${emails} AS cur SET status = 'sent', sent_at = s.sent_at
          FROM unnest(${sql.val(sentRows.map((s) => s.tenant_id))}::uuid[], ${sql.val(sentRows.map((s) => s.id))}::uuid[],
                      ${sql.val(sentRows.map((s) => s.sent_at))}::timestamptz[]) AS s(tenant_id, id, sent_at)
         WHERE cur.tenant_id = s.tenant_id AND cur.id = s.id
      `.execute(trx);
    const versionRows = [...versions.values()];
    if (versionRows.length > 0)
      await sql`
        UPDATE ${emails} AS cur SET version = v.version, updated_at = v.at
          FROM unnest(${sql.val(versionRows.map((v) => v.tenant_id))}::uuid[], ${sql.val(versionRows.map((v) => v.id))}::uuid[],
                      ${sql.val(versionRows.map((v) => v.version))}::int[],
                      ${sql.val(versionRows.map((v) => v.at.toISOString()))}::timestamptz[]) AS v(tenant_id, id, version, at)
         WHERE cur.tenant_id = v.tenant_id AND cur.id = v.id AND cur.version < v.version
      `.execute(trx);
    const deletedRows = [...deleted.values()];
    if (deletedRows.length > 0) {
      const tenants = sql.val(deletedRows.map((d) => d.tenant_id));
      const ids = sql.val(deletedRows.map((d) => d.id));
      await sql`
        DELETE FROM ${emails} AS cur USING unnest(${tenants}::uuid[], ${ids}::uuid[]) AS d(tenant_id, id)
         WHERE cur.tenant_id = d.tenant_id AND cur.id = d.id`.execute(trx);
      await sql`
        DELETE FROM ${recipients} AS cur USING unnest(${tenants}::uuid[], ${ids}::uuid[]) AS d(tenant_id, id)
         WHERE cur.tenant_id = d.tenant_id AND cur.email_id = d.id`.execute(trx);
    }
    if (delivered.length > 0)
      await sql`
        UPDATE ${recipients} AS cur SET delivered_at = coalesce(cur.delivered_at, d.at)
          FROM jsonb_to_recordset(${JSON.stringify(delivered)}::jsonb)
               AS d(tenant_id uuid, email_id uuid, address_key text, at timestamptz)
         WHERE cur.tenant_id = d.tenant_id AND cur.email_id = d.email_id AND cur.address_key = d.address_key
      `.execute(trx);
    for (const [column, hits] of [
      ['opened_at', opened],
      ['clicked_at', clicked],
    ] as const) {
      if (hits.length === 0) continue;
      // The first hit counts; `least` keeps it whatever order a batch brings them in.
      await sql`
        UPDATE ${recipients} AS cur SET ${sql.ref(column)} = least(coalesce(cur.${sql.ref(column)}, h.at), h.at)
          FROM (SELECT tenant_id, email_id, address_key, min(at) AS at
                  FROM jsonb_to_recordset(${JSON.stringify(hits)}::jsonb)
                       AS x(tenant_id uuid, email_id uuid, address_key text, at timestamptz)
                 GROUP BY 1, 2, 3) AS h
         WHERE cur.tenant_id = h.tenant_id AND cur.email_id = h.email_id AND cur.address_key = h.address_key
      `.execute(trx);
    }
    if (skipped.length > 0)
      await sql`
        UPDATE ${recipients} AS cur SET skipped_reason = d.reason
          FROM jsonb_to_recordset(${JSON.stringify(skipped)}::jsonb)
               AS d(tenant_id uuid, email_id uuid, address_key text, reason text)
         WHERE cur.tenant_id = d.tenant_id AND cur.email_id = d.email_id AND cur.address_key = d.address_key
      `.execute(trx);
    if (bounced.length > 0)
      await sql`
        UPDATE ${recipients} AS cur
           SET bounced_at = coalesce(cur.bounced_at, d.at),
               bounce_status = coalesce(cur.bounce_status, d.status),
               bounce_reason = coalesce(cur.bounce_reason, d.reason)
          FROM jsonb_to_recordset(${JSON.stringify(bounced)}::jsonb)
               AS d(tenant_id uuid, email_id uuid, address_key text, at timestamptz, status text, reason text)
         WHERE cur.tenant_id = d.tenant_id AND cur.email_id = d.email_id AND cur.address_key = d.address_key
      `.execute(trx);
    if (unsubscribed.length > 0)
      await sql`
        UPDATE ${recipients} AS cur SET unsubscribed_at = coalesce(cur.unsubscribed_at, d.at)
          FROM jsonb_to_recordset(${JSON.stringify(unsubscribed)}::jsonb)
               AS d(tenant_id uuid, email_id uuid, address_key text, at timestamptz)
         WHERE cur.tenant_id = d.tenant_id AND cur.email_id = d.email_id AND cur.address_key = d.address_key
      `.execute(trx);
    if (inDoubt.length > 0)
      await sql`
        UPDATE ${recipients} AS cur SET in_doubt_at = coalesce(cur.in_doubt_at, d.at)
          FROM (SELECT tenant_id, email_id, address_key, min(at) AS at
                  FROM jsonb_to_recordset(${JSON.stringify(inDoubt)}::jsonb)
                       AS x(tenant_id uuid, email_id uuid, address_key text, at timestamptz)
                 GROUP BY 1, 2, 3) AS d
         WHERE cur.tenant_id = d.tenant_id AND cur.email_id = d.email_id AND cur.address_key = d.address_key
      `.execute(trx);
    if (parked.size > 0)
      await sql`
        UPDATE ${emails} AS cur
           SET parked_event_id = p.event_id, parked_reason = p.reason, parked_error = p.error, parked_at = p.at
          FROM jsonb_to_recordset(${JSON.stringify([...parked.values()])}::jsonb)
               AS p(tenant_id uuid, id uuid, event_id uuid, reason text, error text, at timestamptz)
         WHERE cur.tenant_id = p.tenant_id AND cur.id = p.id
      `.execute(trx);
    if (resumed.length > 0)
      await sql`
        UPDATE ${emails} AS cur
           SET parked_event_id = NULL, parked_reason = NULL, parked_error = NULL, parked_at = NULL
          FROM jsonb_to_recordset(${JSON.stringify(resumed)}::jsonb) AS r(tenant_id uuid, id uuid, parked_event_id uuid)
         WHERE cur.tenant_id = r.tenant_id AND cur.id = r.id AND cur.parked_event_id = r.parked_event_id
      `.execute(trx);
    if (communications.length > 0)
      await sql`
        INSERT INTO ${sql.table(t.email_communications)} (tenant_id, communication_id, email_id)
        SELECT * FROM jsonb_to_recordset(${JSON.stringify(communications)}::jsonb)
               AS c(tenant_id uuid, communication_id uuid, email_id uuid)
        ON CONFLICT DO NOTHING
      `.execute(trx);
  },
});
