import { column, defineTable, type KyselyTables } from '../shared/table.ts';

type ActionListStatus = 'in_progress' | 'completed';
type ActionListItemStatus = 'actioned' | 'not_actioned';

/** One row per live action list of every tenant. */
export const actionListsTable = defineTable({
  name: 'action_lists',
  columns: {
    tenant_id: column.uuid(),
    id: column.uuid(),
    name: column.text(),
    status: column.text<ActionListStatus>(),
    /** Recounted from the list's items whenever a batch changes them. */
    medical_institution_count: column.int().default('0'),
    actioned_count: column.int().default('0'),
    /** The account that created it (name from the CRM projection's accounts). */
    created_by: column.uuid().nullable(),
    /** The stream's revision: the list's If-Match. */
    version: column.int(),
    created_at: column.timestamptz(),
    updated_at: column.timestamptz(),
  },
  primaryKey: ['tenant_id', 'id'],
  indexes: [['tenant_id', 'created_at DESC', 'id']],
});

/** One row per institution on a live list. */
export const actionListItemsTable = defineTable({
  name: 'action_list_items',
  columns: {
    tenant_id: column.uuid(),
    action_list_id: column.uuid(),
    medical_institution_id: column.uuid(),
    status: column.text<ActionListItemStatus>(),
    /** Who last put it on the list or changed its status, and when. */
    updated_by: column.uuid().nullable(),
    updated_at: column.timestamptz(),
    /** When it was put on the list: the list's order. */
    added_at: column.timestamptz(),
    /** The stream revision of its last change (a replayed batch changes nothing). */
    revision: column.int(),
  },
  primaryKey: ['tenant_id', 'action_list_id', 'medical_institution_id'],
  indexes: [
    ['tenant_id', 'action_list_id', 'added_at', 'medical_institution_id'],
    ['tenant_id', 'medical_institution_id'],
  ],
});

export type ActionListsTables = KyselyTables<typeof actionListsTable | typeof actionListItemsTable>;
