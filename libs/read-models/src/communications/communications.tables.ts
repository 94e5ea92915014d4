import type { LabelSelectionData, LabelValueData } from '@renkei/domain';
import { column, defineTable, type KyselyTables } from '../shared/table.ts';

/** One row per live communication of every tenant. */
export const communicationsTable = defineTable({
  name: 'communications',
  columns: {
    tenant_id: column.uuid(),
    id: column.uuid(),
    medical_institution_id: column.uuid(),
    communication_type: column.text(),
    acted_date: column.date(),
    category: column.text().nullable(),
    purpose: column.text().nullable(),
    story: column.text(),
    event_name: column.text().nullable(),
    memo: column.text(),
    other_memo: column.text(),
    person_in_charge_hospital: column.text().nullable(),
    attendee: column.text().nullable(),
    is_doctor_attended: column.boolean(),
    user_id: column.uuid(),
    label_values: column.jsonb<LabelValueData[]>(),
    /** Story, memo and other memo normalised like the partner search (normalizeKeyword), for the keyword. */
    search_text: column.text(),
    /** Saves of the record itself, the If-Match of its edits. */
    version: column.int(),
    /** Revision of the last event applied (comments and likes included): replays never go backwards. */
    revision: column.int(),
    created_at: column.timestamptz(),
    updated_at: column.timestamptz(),
  },
  primaryKey: ['tenant_id', 'id'],
  // The search's order (acted_date, created_at, id) in full, so a page reads its 20 rows and no more:
  // with acted_date alone it read and sorted every record of the first day (~900 heap rows at 1,000,000).
  indexes: [
    ['tenant_id', 'acted_date DESC', 'created_at DESC', 'id DESC'],
    ['tenant_id', 'medical_institution_id', 'acted_date DESC', 'created_at DESC', 'id DESC'],
    ['tenant_id', 'user_id', 'acted_date DESC', 'created_at DESC', 'id DESC'],
    // A type filter over a period (the search's "visits this month", its count) without a heap row each.
    ['tenant_id', 'communication_type', 'acted_date DESC'],
  ],
});

export const communicationCommentsTable = defineTable({
  name: 'communication_comments',
  columns: {
    tenant_id: column.uuid(),
    id: column.uuid(),
    communication_id: column.uuid(),
    user_id: column.uuid(),
    comment: column.text(),
    /** Edits of the comment (0 once posted): the If-Match of its author's edit or delete. */
    version: column.int(),
    created_at: column.timestamptz(),
  },
  primaryKey: ['tenant_id', 'id'],
  indexes: [['tenant_id', 'communication_id']],
});

export const communicationLikesTable = defineTable({
  name: 'communication_likes',
  columns: {
    tenant_id: column.uuid(),
    communication_id: column.uuid(),
    user_id: column.uuid(),
    created_at: column.timestamptz(),
  },
  primaryKey: ['tenant_id', 'communication_id', 'user_id'],
});

/**
 * The tenant's communication labels, in display order. A deleted label stays (`deleted_at` set), out of
 * the label list and the forms, to name the values its records keep (docs/decisions.md).
 */
export const communicationLabelsTable = defineTable({
  name: 'communication_labels',
  columns: {
    tenant_id: column.uuid(),
    id: column.uuid(),
    name: column.text(),
    communication_type: column.text(),
    component_type: column.text(),
    description: column.text(),
    selections: column.jsonb<LabelSelectionData[]>(),
    is_required: column.boolean(),
    sort_order: column.int(),
    version: column.int(),
    /** When the label was deleted; null while it is live. */
    deleted_at: column.timestamptz().nullable(),
    /** Choices removed from the label, with their text: values that chose them stay readable. */
    deleted_selections: column.jsonb<LabelSelectionData[]>(),
  },
  primaryKey: ['tenant_id', 'id'],
});

/**
 * Live records per tenant, day and type: the search's total when it filters on nothing but the period
 * and the types (the unfiltered list, "visits this month") is a sum of these rows instead of a count
 * that visits every matching record. Summed again from `communications` for every key a batch touches.
 */
export const communicationDayCountsTable = defineTable({
  name: 'communication_day_counts',
  columns: {
    tenant_id: column.uuid(),
    acted_date: column.date(),
    communication_type: column.text(),
    record_count: column.int(),
  },
  primaryKey: ['tenant_id', 'acted_date', 'communication_type'],
});

/**
 * Saves of each tenant's communication-label order (`CommunicationLabelsReordered` events): the
 * command side's order version, answered as the ETag of `GET /communication_labels` so a reorder can
 * send it back as If-Match. No row: never reordered (version 0).
 */
export const communicationLabelOrdersTable = defineTable({
  name: 'communication_label_orders',
  columns: {
    tenant_id: column.uuid(),
    order_version: column.int(),
  },
  primaryKey: ['tenant_id'],
});

/** The last visit (visit or new_visit) of each institution a tenant has visited. */
export const lastVisitsTable = defineTable({
  name: 'mi_last_visits',
  columns: {
    tenant_id: column.uuid(),
    medical_institution_id: column.uuid(),
    last_visit_date: column.date(),
  },
  primaryKey: ['tenant_id', 'medical_institution_id'],
  indexes: [['tenant_id', 'last_visit_date']],
});

export type CommunicationsTables = KyselyTables<
  | typeof communicationsTable
  | typeof communicationCommentsTable
  | typeof communicationLikesTable
  | typeof communicationLabelsTable
  | typeof communicationDayCountsTable
  | typeof communicationLabelOrdersTable
  | typeof lastVisitsTable
>;
