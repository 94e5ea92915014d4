import { sql } from 'kysely';
import { defineProjection } from '@renkei/projections';
import {
  CommunicationCreated,
  CommunicationDeleted,
  eventDecoder,
  taskEventSchemas,
  type TaskFields,
} from '@renkei/domain';
import { createTables, insertRows, tableNames, type WriteRow } from '../shared/table.ts';
import { tasksTable } from './tasks.tables.ts';

const decode = eventDecoder({ CommunicationCreated, CommunicationDeleted, ...taskEventSchemas });

/**
 * `rm.tasks`: standalone tasks and tasks entered with a communication (born in its
 * `CommunicationCreated`). A deleted communication leaves its tasks (the follow-up work is still to
 * do) without the link.
 */
export const tasksProjection = defineProjection({
  name: 'tasks',
  // v2: the (tenant_id, staff_id) index of the staff filter.
  version: 2,
  eventTypes: decode.types,
  tables: tableNames([tasksTable]),
  setup: (trx, t) => createTables(trx, [tasksTable], t),
  async handle(trx, events, t) {
    // Folded per task: the latest fields, how many saves since the batch began, deleted or not.
    const latest = new Map<
      string,
      { tenantId: string; fields: TaskFields; created: Date; updated: Date; saves: number; deleted: boolean }
    >();
    const unlinked: { tenantId: string; id: string }[] = [];
    const put = (tenantId: string, fields: TaskFields, at: Date, save: number) => {
      const key = `${tenantId}:${fields.task_id}`;
      const prev = latest.get(key);
      latest.set(key, {
        tenantId,
        fields,
        created: prev?.created ?? at,
        updated: at,
        saves: (prev?.saves ?? 0) + save,
        deleted: false,
      });
    };
    for (const recorded of events) {
      const event = decode(recorded);
      const tenantId = recorded.metadata.tenant_id;
      switch (event.type) {
        case 'CommunicationCreated':
          for (const task of event.data.tasks) {
            put(
              tenantId,
              {
                ...task,
                medical_institution_id: event.data.medical_institution_id,
                communication_id: event.data.communication_id,
                status: 'incomplete',
              },
              recorded.created_at,
              0,
            );
          }
          break;
        case 'CommunicationDeleted':
          unlinked.push({ tenantId, id: event.data.communication_id });
          for (const entry of latest.values())
            if (entry.tenantId === tenantId && entry.fields.communication_id === event.data.communication_id)
              entry.fields = { ...entry.fields, communication_id: null };
          break;
        case 'TaskCreated':
          put(tenantId, event.data, recorded.created_at, 0);
          break;
        case 'TaskUpdated':
          put(tenantId, event.data, recorded.created_at, 1);
          break;
        case 'TaskDeleted': {
          const key = `${tenantId}:${event.data.task_id}`;
          const prev = latest.get(key);
          latest.set(key, {
            tenantId,
            fields: prev?.fields ?? {
              ...event.data,
              title: '',
              staff_id: null,
              deadline: null,
              medical_institution_id: null,
              status: 'incomplete',
            },
            created: recorded.created_at,
            updated: recorded.created_at,
            saves: 0,
            deleted: true,
          });
          break;
        }
        default: {
          const never: never = event;
          throw new Error(`tasks projection: unexpected event ${JSON.stringify(never)}`);
        }
      }
    }
    if (unlinked.length > 0) {
      await sql`
        UPDATE ${sql.table(t.tasks)} AS cur SET communication_id = NULL
          FROM unnest(${sql.val(unlinked.map((u) => u.tenantId))}::uuid[], ${sql.val(unlinked.map((u) => u.id))}::uuid[])
               AS d(tenant_id, id)
         WHERE cur.tenant_id = d.tenant_id AND cur.communication_id = d.id`.execute(trx);
    }
    const rows: WriteRow<typeof tasksTable>[] = [...latest.values()]
      .filter((e) => !e.deleted)
      .map((e) => ({
        tenant_id: e.tenantId,
        id: e.fields.task_id,
        title: e.fields.title,
        staff_id: e.fields.staff_id,
        deadline: e.fields.deadline,
        medical_institution_id: e.fields.medical_institution_id,
        communication_id: e.fields.communication_id,
        status: e.fields.status,
        // A new row counts its saves; an existing one adds them.
        version: e.saves,
        created_at: e.created.toISOString(),
        updated_at: e.updated.toISOString(),
      }));
    await insertRows(trx, t.tasks, tasksTable, rows, {
      onConflict: sql`ON CONFLICT (tenant_id, id) DO UPDATE SET title = excluded.title, staff_id = excluded.staff_id,
        deadline = excluded.deadline, medical_institution_id = excluded.medical_institution_id,
        communication_id = excluded.communication_id, status = excluded.status,
        version = ${sql.table(t.tasks)}.version + excluded.version, updated_at = excluded.updated_at`,
    });
    const deleted = [...latest.values()].filter((e) => e.deleted);
    if (deleted.length > 0) {
      await sql`
        DELETE FROM ${sql.table(t.tasks)} AS cur
         USING unnest(${sql.val(deleted.map((e) => e.tenantId))}::uuid[], ${sql.val(deleted.map((e) => e.fields.task_id))}::uuid[])
               AS d(tenant_id, id)
         WHERE cur.tenant_id = d.tenant_id AND cur.id = d.id`.execute(trx);
    }
  },
});
