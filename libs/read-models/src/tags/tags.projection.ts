import { sql } from 'kysely';
import { defineProjection } from '@renkei/projections';
import {
  eventDecoder,
  MedicalInstitutionTagsChanged,
  normalizeTagName,
  tagEventSchemas,
  tagGroupId,
} from '@renkei/domain';
import { createTables, tableNames, type WriteRow } from '../shared/table.ts';
import { tagsTable } from './tags.tables.ts';

type TagRow = Omit<
  WriteRow<typeof tagsTable>,
  'normalized_name' | 'medical_institution_count' | 'created_at' | 'updated_at'
> & {
  changed_at: Date;
};

const decode = eventDecoder({ ...tagEventSchemas, MedicalInstitutionTagsChanged });

/**
 * `rm.tags`: one row per live tag of every tenant. `medical_institution_count` belongs to the
 * institutions' projection, which keeps it up to date; this projection never overwrites it.
 */
export const tagsProjection = defineProjection({
  name: 'tags',
  version: 2,
  eventTypes: decode.types,
  tables: tableNames([tagsTable]),
  setup: (trx, t) => createTables(trx, [tagsTable], t),
  async handle(trx, events, t) {
    // Fold the batch per tag first: one upsert and one delete statement per batch.
    const latest = new Map<string, TagRow | { deleted: true; tenant_id: string; id: string }>();
    // medical_institution_count moves by the institutions' tag changes, in the same global order as
    // the tags themselves (so a count never lands on a tag row that does not exist yet).
    const countDeltas = new Map<string, { tenant_id: string; id: string; delta: number }>();
    for (const recorded of events) {
      const event = decode(recorded);
      const tenantId = recorded.metadata.tenant_id;
      if (event.type === 'MedicalInstitutionTagsChanged') {
        const changed = event.data;
        for (const [ids, delta] of [
          [changed.added_tag_ids, 1],
          [changed.removed_tag_ids, -1],
        ] as const) {
          for (const id of ids) {
            const key = `${tenantId}:${id}`;
            const entry = countDeltas.get(key) ?? { tenant_id: tenantId, id, delta: 0 };
            entry.delta += delta;
            countDeltas.set(key, entry);
          }
        }
        continue;
      }
      const key = `${tenantId}:${event.data.tag_id}`;
      switch (event.type) {
        case 'TagCreated':
        case 'TagUpdated': {
          const data = event.data;
          latest.set(key, {
            tenant_id: tenantId,
            id: data.tag_id,
            name: data.name,
            description: data.description,
            group_id: data.group_name ? tagGroupId(tenantId, data.group_name) : null,
            group_name: data.group_name,
            version: recorded.revision,
            changed_at: recorded.created_at,
          });
          break;
        }
        case 'TagDeleted':
          latest.set(key, { deleted: true, tenant_id: tenantId, id: event.data.tag_id });
          break;
        default: {
          const never: never = event;
          throw new Error(`tags projection: unexpected event ${JSON.stringify(never)}`);
        }
      }
    }
    const upserts = [...latest.values()].filter((r): r is TagRow => !('deleted' in r));
    const deletes = [...latest.values()].filter((r) => 'deleted' in r);
    if (upserts.length > 0) {
      await sql`
        INSERT INTO ${sql.table(t.tags)} AS cur
          (tenant_id, id, name, normalized_name, description, group_id, group_name, version, created_at, updated_at)
        SELECT u.tenant_id, u.id, u.name, u.normalized_name, u.description, u.group_id, u.group_name, u.version,
               u.changed_at, u.changed_at
          FROM unnest(
            ${sql.val(upserts.map((r) => r.tenant_id))}::uuid[],
            ${sql.val(upserts.map((r) => r.id))}::uuid[],
            ${sql.val(upserts.map((r) => r.name))}::text[],
            ${sql.val(upserts.map((r) => normalizeTagName(r.name)))}::text[],
            ${sql.val(upserts.map((r) => r.description))}::text[],
            ${sql.val(upserts.map((r) => r.group_id))}::uuid[],
            ${sql.val(upserts.map((r) => r.group_name))}::text[],
            ${sql.val(upserts.map((r) => r.version))}::int[],
            ${sql.val(upserts.map((r) => r.changed_at.toISOString()))}::timestamptz[]
          ) AS u(tenant_id, id, name, normalized_name, description, group_id, group_name, version, changed_at)
        ON CONFLICT (tenant_id, id) DO UPDATE SET
          name = excluded.name,
          normalized_name = excluded.normalized_name,
          description = excluded.description,
          group_id = excluded.group_id,
          group_name = excluded.group_name,
          version = excluded.version,
          updated_at = excluded.updated_at
        WHERE cur.version < excluded.version
      `.execute(trx);
    }
    if (deletes.length > 0) {
      await sql`
        DELETE FROM ${sql.table(t.tags)} AS cur
         USING unnest(${sql.val(deletes.map((r) => r.tenant_id))}::uuid[], ${sql.val(deletes.map((r) => r.id))}::uuid[])
               AS d(tenant_id, id)
         WHERE cur.tenant_id = d.tenant_id AND cur.id = d.id
      `.execute(trx);
    }
    const deltas = [...countDeltas.values()].filter((d) => d.delta !== 0);
    if (deltas.length > 0) {
      await sql`
        UPDATE ${sql.table(t.tags)} AS cur SET medical_institution_count = greatest(cur.medical_institution_count + d.delta, 0)
          FROM unnest(${sql.val(deltas.map((d) => d.tenant_id))}::uuid[], ${sql.val(deltas.map((d) => d.id))}::uuid[],
                      ${sql.val(deltas.map((d) => d.delta))}::int[]) AS d(tenant_id, id, delta)
         WHERE cur.tenant_id = d.tenant_id AND cur.id = d.id
      `.execute(trx);
    }
  },
});
