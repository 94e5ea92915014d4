import { column, defineTable, type KyselyTables } from '../shared/table.ts';

/** One row per live (not deleted) email campaign of every tenant. */
export const emailsTable = defineTable({
  name: 'emails',
  columns: {
    tenant_id: column.uuid(),
    id: column.uuid(),
    title: column.text(),
    status: column.text<'sent' | 'unsent'>(),
    destination_count: column.int(),
    invalid_destination_count: column.int(),
    /** The first rows of the recipients file without a valid address ({ row_number, value }). */
    invalid_destinations: column.jsonb<{ row_number: number; value: string }[]>().default(`'[]'`),
    sender_name: column.text(),
    sender_email: column.text(),
    main_content: column.text(),
    attachment_id: column.uuid().nullable(),
    doctor_ids: column.uuidArray(),
    sent_at: column.timestamptz().nullable(),
    created_by: column.uuid().nullable(),
    created_at: column.timestamptz(),
    updated_at: column.timestamptz(),
    /** The email stream's revision. */
    version: column.int(),
    /** The worker stopped the campaign's send (`EmailSendParked`); cleared when it is resumed. */
    parked_event_id: column.uuid().nullable(),
    parked_reason: column.text<'attachment_missing' | 'delivery_failed'>().nullable(),
    parked_error: column.text().nullable(),
    parked_at: column.timestamptz().nullable(),
  },
  primaryKey: ['tenant_id', 'id'],
  indexes: [['tenant_id', 'status', 'created_at DESC']],
});

/** The recipients of a campaign's last draft, with what became of their mail (test sends never count). */
export const emailRecipientsTable = defineTable({
  name: 'email_recipients',
  columns: {
    tenant_id: column.uuid(),
    email_id: column.uuid(),
    /** Lower-cased address: one recipient per address whatever its case. */
    address_key: column.text(),
    id: column.uuid(),
    /** The position in the draft's list, for a stable report order. */
    sort_order: column.int(),
    email_address: column.text(),
    name: column.text().nullable(),
    doctor_id: column.uuid().nullable(),
    medical_institution_id: column.uuid().nullable(),
    delivered_at: column.timestamptz().nullable(),
    skipped_reason: column.text<'unsubscribed'>().nullable(),
    opened_at: column.timestamptz().nullable(),
    clicked_at: column.timestamptz().nullable(),
    /** A permanent bounce came back to the recipient's return path: not delivered after all. */
    bounced_at: column.timestamptz().nullable(),
    bounce_status: column.text().nullable(),
    bounce_reason: column.text().nullable(),
    /** The recipient unsubscribed through this campaign's mail. */
    unsubscribed_at: column.timestamptz().nullable(),
    /**
     * A worker resumed the send after a crash and found this recipient's mail under way without an
     * outcome: mailed again, it may have arrived twice (or, without `delivered_at`, not be known yet).
     */
    in_doubt_at: column.timestamptz().nullable(),
  },
  primaryKey: ['tenant_id', 'email_id', 'address_key'],
  indexes: [['tenant_id', 'email_id', 'sort_order']],
});

/** The communications (type email) a sent campaign left on its recipient institutions' timelines. */
export const emailCommunicationsTable = defineTable({
  name: 'email_communications',
  columns: {
    tenant_id: column.uuid(),
    communication_id: column.uuid(),
    email_id: column.uuid(),
  },
  primaryKey: ['tenant_id', 'communication_id'],
  indexes: [['tenant_id', 'email_id']],
});

export type EmailsTables = KyselyTables<typeof emailsTable> &
  KyselyTables<typeof emailRecipientsTable> &
  KyselyTables<typeof emailCommunicationsTable>;
