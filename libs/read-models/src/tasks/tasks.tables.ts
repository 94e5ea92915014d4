import { column, defineTable, type KyselyTables } from '../shared/table.ts';

/** One row per live task of every tenant. */
export const tasksTable = defineTable({
  name: 'tasks',
  columns: {
    tenant_id: column.uuid(),
    id: column.uuid(),
    title: column.text(),
    staff_id: column.uuid().nullable(),
    deadline: column.date().nullable(),
    medical_institution_id: column.uuid().nullable(),
    /** The communication it was entered with; null once that record is deleted. */
    communication_id: column.uuid().nullable(),
    status: column.text<'incomplete' | 'finished'>(),
    version: column.int(),
    created_at: column.timestamptz(),
    updated_at: column.timestamptz(),
  },
  primaryKey: ['tenant_id', 'id'],
  indexes: [
    ['tenant_id', 'created_at DESC', 'id'],
    ['tenant_id', 'communication_id'],
    ['tenant_id', 'medical_institution_id'],
    // "My tasks" on /tasks (GET /tasks?user_id=…): without it the filter reads every task of the tenant.
    ['tenant_id', 'staff_id'],
  ],
});

export type TasksTables = KyselyTables<typeof tasksTable>;
