import { column, defineTable, type KyselyTables } from '../shared/table.ts';

/** One row per live tag of every tenant. */
export const tagsTable = defineTable({
  name: 'tags',
  columns: {
    tenant_id: column.uuid(),
    id: column.uuid(),
    name: column.text(),
    normalized_name: column.text(),
    description: column.text(),
    group_id: column.uuid().nullable(),
    group_name: column.text().nullable(),
    /** Kept by the institutions' tag changes, never by the tag's own events. */
    medical_institution_count: column.int().default('0'),
    version: column.int(),
    created_at: column.timestamptz(),
    updated_at: column.timestamptz(),
  },
  primaryKey: ['tenant_id', 'id'],
  indexes: [
    ['tenant_id', 'name', 'id'],
    ['tenant_id', 'group_id'],
  ],
});

export type TagsTables = KyselyTables<typeof tagsTable>;
