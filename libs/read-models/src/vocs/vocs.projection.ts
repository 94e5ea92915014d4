import { sql } from 'kysely';
import { defineProjection } from '@renkei/projections';
import { eventDecoder, vocEventSchemas, vocGroupEventSchemas, type VocFields } from '@renkei/domain';
import { createTables, insertRows, tableNames, type WriteRow } from '../shared/table.ts';
import { vocGroupsTable, vocsTable } from './vocs.tables.ts';

const decode = eventDecoder({ ...vocEventSchemas, ...vocGroupEventSchemas });

interface Folded {
  tenantId: string;
  vocId: string;
  /** The whole record when the batch has its create or an update. */
  fields: VocFields | null;
  /** Links changed after the batch's last whole record (or with none in the batch). */
  links: string[] | null;
  revision: number;
  created: Date | null;
  updated: Date;
  deleted: boolean;
}

/** `rm.vocs` and `rm.voc_groups`: the VOCs as their streams hold them, the groups as last saved. */
export const vocsProjection = defineProjection({
  name: 'vocs',
  version: 1,
  eventTypes: decode.types,
  tables: tableNames([vocsTable, vocGroupsTable]),
  setup: (trx, t) => createTables(trx, [vocsTable, vocGroupsTable], t),
  async handle(trx, events, t) {
    const vocs = new Map<string, Folded>();
    const groups = new Map<string, { id: string; name: string }[]>();
    for (const recorded of events) {
      const event = decode(recorded);
      const tenantId = recorded.metadata.tenant_id;
      const at = recorded.created_at;
      switch (event.type) {
        case 'VocCreated':
        case 'VocUpdated': {
          const key = `${tenantId}:${event.data.voc_id}`;
          const prev = vocs.get(key);
          vocs.set(key, {
            tenantId,
            vocId: event.data.voc_id,
            fields: event.data,
            links: null,
            revision: recorded.revision,
            created: event.type === 'VocCreated' ? at : (prev?.created ?? null),
            updated: at,
            deleted: false,
          });
          break;
        }
        case 'VocCommunicationsChanged': {
          const key = `${tenantId}:${event.data.voc_id}`;
          const prev = vocs.get(key);
          const ids = event.data.communication_ids;
          vocs.set(key, {
            tenantId,
            vocId: event.data.voc_id,
            fields: prev?.fields ? { ...prev.fields, communication_ids: ids } : null,
            links: prev?.fields ? null : ids,
            revision: recorded.revision,
            created: prev?.created ?? null,
            updated: at,
            deleted: prev?.deleted ?? false,
          });
          break;
        }
        case 'VocDeleted': {
          const key = `${tenantId}:${event.data.voc_id}`;
          vocs.set(key, {
            tenantId,
            vocId: event.data.voc_id,
            fields: null,
            links: null,
            revision: recorded.revision,
            created: null,
            updated: at,
            deleted: true,
          });
          break;
        }
        case 'VocGroupsReplaced':
          groups.set(tenantId, event.data.voc_groups);
          break;
        default: {
          const never: never = event;
          throw new Error(`vocs projection: unexpected event ${JSON.stringify(never)}`);
        }
      }
    }
    const live = [...vocs.values()].filter((v) => !v.deleted);
    const rows: WriteRow<typeof vocsTable>[] = live.flatMap((v) =>
      v.fields
        ? [
            {
              tenant_id: v.tenantId,
              id: v.vocId,
              medical_institution_id: v.fields.medical_institution_id,
              title: v.fields.title,
              reported_date: v.fields.reported_date,
              status: v.fields.status,
              priority: v.fields.priority,
              detail_text: v.fields.detail_text,
              action_text: v.fields.action_text,
              user_id: v.fields.user_id,
              voc_group_id: v.fields.voc_group_id,
              communication_ids: v.fields.communication_ids,
              version: v.revision,
              // An update of a row from an earlier batch keeps that row's created_at (ON CONFLICT).
              created_at: (v.created ?? v.updated).toISOString(),
              updated_at: v.updated.toISOString(),
            },
          ]
        : [],
    );
    // Replays never go backwards: a row already at a later revision stays.
    await insertRows(trx, t.vocs, vocsTable, rows, {
      onConflict: sql`ON CONFLICT (tenant_id, id) DO UPDATE SET medical_institution_id = excluded.medical_institution_id,
        title = excluded.title, reported_date = excluded.reported_date, status = excluded.status,
        priority = excluded.priority, detail_text = excluded.detail_text, action_text = excluded.action_text,
        user_id = excluded.user_id, voc_group_id = excluded.voc_group_id,
        communication_ids = excluded.communication_ids, version = excluded.version, updated_at = excluded.updated_at
        WHERE ${sql.table(t.vocs)}.version < excluded.version`,
    });
    const linkOnly = live.filter((v) => !v.fields && v.links);
    if (linkOnly.length > 0) {
      await sql`
        UPDATE ${sql.table(t.vocs)} AS cur
           SET communication_ids = ARRAY(SELECT jsonb_array_elements_text(d.links)::uuid),
               version = d.revision, updated_at = d.updated_at
          FROM jsonb_to_recordset(${JSON.stringify(
            linkOnly.map((v) => ({
              tenant_id: v.tenantId,
              id: v.vocId,
              links: v.links,
              revision: v.revision,
              updated_at: v.updated.toISOString(),
            })),
          )}::jsonb) AS d(tenant_id uuid, id uuid, links jsonb, revision int, updated_at timestamptz)
         WHERE cur.tenant_id = d.tenant_id AND cur.id = d.id AND cur.version < d.revision`.execute(trx);
    }
    const deleted = [...vocs.values()].filter((v) => v.deleted);
    if (deleted.length > 0) {
      await sql`
        DELETE FROM ${sql.table(t.vocs)} AS cur
         USING unnest(${sql.val(deleted.map((v) => v.tenantId))}::uuid[], ${sql.val(deleted.map((v) => v.vocId))}::uuid[])
               AS d(tenant_id, id)
         WHERE cur.tenant_id = d.tenant_id AND cur.id = d.id`.execute(trx);
    }
    if (groups.size > 0) {
      const tenants = [...groups.keys()];
      await sql`DELETE FROM ${sql.table(t.voc_groups)} WHERE tenant_id = ANY(${sql.val(tenants)}::uuid[])`.execute(trx);
      await insertRows(
        trx,
        t.voc_groups,
        vocGroupsTable,
        [...groups].flatMap(([tenantId, list]) =>
          list.map((g, i) => ({ tenant_id: tenantId, id: g.id, name: g.name, sort_order: i })),
        ),
      );
    }
  },
});
