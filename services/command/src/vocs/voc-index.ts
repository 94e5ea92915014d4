import { sql } from 'kysely';
import type { Database } from '@renkei/db';

/**
 * `cmd.voc_index`: for each VOC, the groups and communications its stream may name. It is a superset
 * (widened before an append, narrowed after it), so it only says which VOC streams to read: a group
 * about to be deleted, or a communication whose links are replaced, is then checked on those streams.
 * A crash between the two writes leaves a wider row, which costs a stream read and nothing else.
 */
export async function widenVocIndex(
  db: Database,
  tenantId: string,
  vocId: string,
  groupIds: readonly string[],
  communicationIds: readonly string[],
): Promise<void> {
  await sql`
    INSERT INTO cmd.voc_index AS cur (tenant_id, voc_id, group_ids, communication_ids)
    VALUES (${tenantId}, ${vocId}, ${sql.val(groupIds)}::uuid[], ${sql.val(communicationIds)}::uuid[])
    ON CONFLICT (tenant_id, voc_id) DO UPDATE SET
      group_ids = ARRAY(SELECT DISTINCT unnest(cur.group_ids || excluded.group_ids)),
      communication_ids = ARRAY(SELECT DISTINCT unnest(cur.communication_ids || excluded.communication_ids))`.execute(
    db.kysely,
  );
}

/** After an append: the row says exactly what the stream now holds (nothing for a deleted VOC). */
export async function settleVocIndex(
  db: Database,
  tenantId: string,
  vocId: string,
  now: { voc_group_id: string | null; communication_ids: readonly string[] } | null,
): Promise<void> {
  if (now === null) {
    await sql`DELETE FROM cmd.voc_index WHERE tenant_id = ${tenantId} AND voc_id = ${vocId}`.execute(db.kysely);
    return;
  }
  const groups = now.voc_group_id ? [now.voc_group_id] : [];
  await sql`
    UPDATE cmd.voc_index SET group_ids = ${sql.val(groups)}::uuid[],
           communication_ids = ${sql.val(now.communication_ids)}::uuid[]
     WHERE tenant_id = ${tenantId} AND voc_id = ${vocId}`.execute(db.kysely);
}

/** VOCs that may be in one of these groups. */
export async function vocsMaybeInGroups(db: Database, tenantId: string, groupIds: readonly string[]) {
  if (groupIds.length === 0) return [];
  const { rows } = await sql<{ voc_id: string }>`
    SELECT voc_id FROM cmd.voc_index
     WHERE tenant_id = ${tenantId} AND group_ids && ${sql.val(groupIds)}::uuid[]`.execute(db.kysely);
  return rows.map((r) => r.voc_id);
}

/** VOCs that may link this communication. */
export async function vocsMaybeLinkedTo(db: Database, tenantId: string, communicationId: string) {
  const { rows } = await sql<{ voc_id: string }>`
    SELECT voc_id FROM cmd.voc_index
     WHERE tenant_id = ${tenantId} AND communication_ids @> ARRAY[${communicationId}]::uuid[]`.execute(db.kysely);
  return rows.map((r) => r.voc_id);
}
