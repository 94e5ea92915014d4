import { column, defineTable, type KyselyTables } from '../shared/table.ts';

type VocStatus = 'NOT_STARTED' | 'IN_PROGRESS' | 'COMPLETED' | 'NO_ACTION_REQUIRED';
type VocPriority = 'LOW' | 'MIDDLE' | 'HIGH';

/** One row per live VOC of every tenant. */
export const vocsTable = defineTable({
  name: 'vocs',
  columns: {
    tenant_id: column.uuid(),
    id: column.uuid(),
    medical_institution_id: column.uuid(),
    title: column.text(),
    reported_date: column.date(),
    status: column.text<VocStatus>(),
    priority: column.text<VocPriority>(),
    detail_text: column.text(),
    action_text: column.text(),
    user_id: column.uuid().nullable(),
    /** May name a group deleted in a race with the save (docs/decisions.md): read as no group. */
    voc_group_id: column.uuid().nullable(),
    /** As the stream holds them; communications deleted since are left out when read. */
    communication_ids: column.uuidArray(),
    /** The stream's revision: the VOC's If-Match. */
    version: column.int(),
    created_at: column.timestamptz(),
    updated_at: column.timestamptz(),
  },
  primaryKey: ['tenant_id', 'id'],
  indexes: [
    ['tenant_id', 'reported_date DESC', 'id'],
    ['tenant_id', 'medical_institution_id', 'reported_date DESC'],
    ['tenant_id', 'voc_group_id'],
  ],
});

/** The tenant's VOC groups, in the order the list was saved. */
export const vocGroupsTable = defineTable({
  name: 'voc_groups',
  columns: {
    tenant_id: column.uuid(),
    id: column.uuid(),
    name: column.text(),
    sort_order: column.int(),
  },
  primaryKey: ['tenant_id', 'id'],
});

export type VocsTables = KyselyTables<typeof vocsTable | typeof vocGroupsTable>;
