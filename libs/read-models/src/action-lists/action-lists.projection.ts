import { sql } from 'kysely';
import { defineProjection } from '@renkei/projections';
import { actionListEventSchemas, eventDecoder } from '@renkei/domain';
import { createTables, insertRows, tableNames, type WriteRow } from '../shared/table.ts';
import { actionListItemsTable, actionListsTable } from './action-lists.tables.ts';

const decode = eventDecoder(actionListEventSchemas);

/** A list as the batch leaves it: a new row, a change of an earlier batch's row, or gone. */
interface FoldedList {
  tenantId: string;
  id: string;
  created: { name: string; createdBy: string | null; at: Date } | null;
  name: string | null;
  status: 'in_progress' | 'completed' | null;
  revision: number;
  updated: Date;
  deleted: boolean;
  /** Items of it changed in the batch: its counts are recounted. */
  itemsChanged: boolean;
}

/** An item as the batch leaves it: on the list (whole row), re-marked only, or taken off. */
type FoldedItem = {
  tenantId: string;
  listId: string;
  institutionId: string;
  revision: number;
} & (
  | {
      kind: 'upsert' | 'status';
      status: 'actioned' | 'not_actioned';
      updatedBy: string | null;
      updated: Date;
      added: Date;
    }
  | { kind: 'delete' }
);

/**
 * `rm.action_lists` and `rm.action_list_items`: the lists with their counts, and one row per
 * institution on a list. The counts are recounted from the items of every list a batch touches, so
 * they never drift from the rows.
 */
export const actionListsProjection = defineProjection({
  name: 'action_lists',
  version: 1,
  eventTypes: decode.types,
  tables: tableNames([actionListsTable, actionListItemsTable]),
  setup: (trx, t) => createTables(trx, [actionListsTable, actionListItemsTable], t),
  async handle(trx, events, t) {
    const lists = new Map<string, FoldedList>();
    const items = new Map<string, FoldedItem>();
    for (const recorded of events) {
      const event = decode(recorded);
      const tenantId = recorded.metadata.tenant_id;
      const listId = event.data.action_list_id;
      const key = `${tenantId}:${listId}`;
      const at = recorded.created_at;
      const revision = recorded.revision;
      const accountId = recorded.metadata.account_id;
      // Every event of the stream moves the list's version, item changes included.
      const list = lists.get(key) ?? {
        tenantId,
        id: listId,
        created: null,
        name: null,
        status: null,
        revision,
        updated: at,
        deleted: false,
        itemsChanged: false,
      };
      list.revision = revision;
      list.updated = at;
      lists.set(key, list);
      const itemKey = (id: string) => `${key}:${id}`;
      if ('medical_institution_ids' in event.data) list.itemsChanged = true;
      switch (event.type) {
        case 'ActionListCreated':
          list.created = { name: event.data.name, createdBy: accountId, at };
          list.name = event.data.name;
          list.status = 'in_progress';
          break;
        case 'ActionListRenamed':
          list.name = event.data.name;
          break;
        case 'ActionListStatusChanged':
          list.status = event.data.status;
          break;
        case 'ActionListDeleted':
          list.deleted = true;
          for (const k of [...items.keys()]) if (k.startsWith(`${key}:`)) items.delete(k);
          break;
        case 'ActionListItemsAdded':
          for (const id of event.data.medical_institution_ids)
            items.set(itemKey(id), {
              tenantId,
              listId,
              institutionId: id,
              revision,
              kind: 'upsert',
              status: 'not_actioned',
              updatedBy: accountId,
              updated: at,
              added: at,
            });
          break;
        case 'ActionListItemsRemoved':
          for (const id of event.data.medical_institution_ids)
            items.set(itemKey(id), { tenantId, listId, institutionId: id, revision, kind: 'delete' });
          break;
        case 'ActionListItemsStatusChanged':
          for (const id of event.data.medical_institution_ids) {
            const prev = items.get(itemKey(id));
            items.set(itemKey(id), {
              tenantId,
              listId,
              institutionId: id,
              revision,
              // Put on the list in this batch: still a whole row, with the new status.
              kind: prev?.kind === 'upsert' ? 'upsert' : 'status',
              status: event.data.status,
              updatedBy: accountId,
              updated: at,
              added: prev && prev.kind !== 'delete' ? prev.added : at,
            });
          }
          break;
        default: {
          const never: never = event;
          throw new Error(`action lists projection: unexpected event ${JSON.stringify(never)}`);
        }
      }
    }

    const live = [...lists.values()].filter((l) => !l.deleted);
    const createdRows: Omit<WriteRow<typeof actionListsTable>, 'medical_institution_count' | 'actioned_count'>[] =
      live.flatMap((l) =>
        l.created
          ? [
              {
                tenant_id: l.tenantId,
                id: l.id,
                name: l.name!,
                status: l.status!,
                created_by: l.created.createdBy,
                version: l.revision,
                created_at: l.created.at.toISOString(),
                updated_at: l.updated.toISOString(),
              },
            ]
          : [],
      );
    // A replayed batch finds its rows at their revision and leaves them.
    await insertRows(trx, t.action_lists, actionListsTable, createdRows, {
      columns: ['tenant_id', 'id', 'name', 'status', 'created_by', 'version', 'created_at', 'updated_at'],
      onConflict: sql`ON CONFLICT (tenant_id, id) DO NOTHING`,
    });
    const changed = live.filter((l) => !l.created);
    if (changed.length > 0) {
      await sql`
        UPDATE ${sql.table(t.action_lists)} AS cur
           SET name = coalesce(d.name, cur.name), status = coalesce(d.status, cur.status),
               version = d.revision, updated_at = d.updated_at
          FROM jsonb_to_recordset(${JSON.stringify(
            changed.map((l) => ({
              tenant_id: l.tenantId,
              id: l.id,
              name: l.name,
              status: l.status,
              revision: l.revision,
              updated_at: l.updated.toISOString(),
            })),
          )}::jsonb) AS d(tenant_id uuid, id uuid, name text, status text, revision int, updated_at timestamptz)
         WHERE cur.tenant_id = d.tenant_id AND cur.id = d.id AND cur.version < d.revision`.execute(trx);
    }
    const deleted = [...lists.values()].filter((l) => l.deleted);
    if (deleted.length > 0) {
      const tenants = sql.val(deleted.map((l) => l.tenantId));
      const ids = sql.val(deleted.map((l) => l.id));
      await sql`
        DELETE FROM ${sql.table(t.action_lists)} AS cur
         USING unnest(${tenants}::uuid[], ${ids}::uuid[]) AS d(tenant_id, id)
         WHERE cur.tenant_id = d.tenant_id AND cur.id = d.id`.execute(trx);
      await sql`
        DELETE FROM ${sql.table(t.action_list_items)} AS cur
         USING unnest(${tenants}::uuid[], ${ids}::uuid[]) AS d(tenant_id, id)
         WHERE cur.tenant_id = d.tenant_id AND cur.action_list_id = d.id`.execute(trx);
    }

    const folded = [...items.values()];
    const upserts = folded.flatMap((i) =>
      i.kind === 'upsert'
        ? [
            {
              tenant_id: i.tenantId,
              action_list_id: i.listId,
              medical_institution_id: i.institutionId,
              status: i.status,
              updated_by: i.updatedBy,
              updated_at: i.updated.toISOString(),
              added_at: i.added.toISOString(),
              revision: i.revision,
            },
          ]
        : [],
    );
    await insertRows(trx, t.action_list_items, actionListItemsTable, upserts, {
      onConflict: sql`ON CONFLICT (tenant_id, action_list_id, medical_institution_id) DO UPDATE SET
        status = excluded.status, updated_by = excluded.updated_by, updated_at = excluded.updated_at,
        added_at = excluded.added_at, revision = excluded.revision
        WHERE ${sql.table(t.action_list_items)}.revision < excluded.revision`,
    });
    const marked = folded.flatMap((i) =>
      i.kind === 'status'
        ? [
            {
              tenant_id: i.tenantId,
              action_list_id: i.listId,
              medical_institution_id: i.institutionId,
              status: i.status,
              updated_by: i.updatedBy,
              updated_at: i.updated.toISOString(),
              revision: i.revision,
            },
          ]
        : [],
    );
    if (marked.length > 0) {
      await sql`
        UPDATE ${sql.table(t.action_list_items)} AS cur
           SET status = d.status, updated_by = d.updated_by, updated_at = d.updated_at, revision = d.revision
          FROM jsonb_to_recordset(${JSON.stringify(marked)}::jsonb)
               AS d(tenant_id uuid, action_list_id uuid, medical_institution_id uuid, status text, updated_by uuid,
                    updated_at timestamptz, revision int)
         WHERE cur.tenant_id = d.tenant_id AND cur.action_list_id = d.action_list_id
           AND cur.medical_institution_id = d.medical_institution_id AND cur.revision < d.revision`.execute(trx);
    }
    const removed = folded.filter((i) => i.kind === 'delete');
    if (removed.length > 0) {
      await sql`
        DELETE FROM ${sql.table(t.action_list_items)} AS cur
         USING jsonb_to_recordset(${JSON.stringify(
           removed.map((i) => ({
             tenant_id: i.tenantId,
             action_list_id: i.listId,
             medical_institution_id: i.institutionId,
             revision: i.revision,
           })),
         )}::jsonb) AS d(tenant_id uuid, action_list_id uuid, medical_institution_id uuid, revision int)
         WHERE cur.tenant_id = d.tenant_id AND cur.action_list_id = d.action_list_id
           AND cur.medical_institution_id = d.medical_institution_id AND cur.revision < d.revision`.execute(trx);
    }

    const touched = live.filter((l) => l.itemsChanged);
    if (touched.length > 0) {
      await sql`
        UPDATE ${sql.table(t.action_lists)} AS cur
           SET medical_institution_count = c.n, actioned_count = c.actioned
          FROM unnest(${sql.val(touched.map((l) => l.tenantId))}::uuid[], ${sql.val(touched.map((l) => l.id))}::uuid[])
               AS d(tenant_id, id)
         CROSS JOIN LATERAL (
           SELECT count(*)::int AS n, (count(*) FILTER (WHERE i.status = 'actioned'))::int AS actioned
             FROM ${sql.table(t.action_list_items)} i
            WHERE i.tenant_id = d.tenant_id AND i.action_list_id = d.id) c
         WHERE cur.tenant_id = d.tenant_id AND cur.id = d.id
           AND (cur.medical_institution_count, cur.actioned_count) IS DISTINCT FROM (c.n, c.actioned)`.execute(trx);
    }
  },
});
