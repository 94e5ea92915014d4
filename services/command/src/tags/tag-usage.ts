import { sql } from 'kysely';
import type { Database } from '@renkei/db';
import { parseCrmEvent } from '@renkei/domain';
import type { AppendResult, EventStore, ExpectedRevision, NewEvent } from '@renkei/event-store';

/**
 * How many institutions carry each tag, as the command side counts them (`cmd.tag_usage`), so a tag
 * write answers the real `medical_institution_count` without reading the query side's tables. The
 * count moves with the `MedicalInstitutionTagsChanged` that changes it: in the append's transaction
 * on Postgres (a guard), right after the append on stores without guards.
 */
export function createTagUsage(db: Database, store: EventStore) {
  return {
    /** Appends an institution's CRM events; the tag changes among them move the counts with them. */
    async append(
      stream: string,
      tenantId: string,
      events: NewEvent[],
      expectedRevision: ExpectedRevision,
    ): Promise<AppendResult> {
      const added: string[] = [];
      const removed: string[] = [];
      for (const event of events) {
        const parsed = parseCrmEvent(event);
        if (parsed.type !== 'MedicalInstitutionTagsChanged') continue;
        added.push(...parsed.data.added_tag_ids);
        removed.push(...parsed.data.removed_tag_ids);
      }
      if (added.length === 0 && removed.length === 0) return store.append(stream, events, { expectedRevision });
      const argument = { tenant: tenantId, added, removed };
      if (store.supportsGuards) {
        return store.append(stream, events, {
          expectedRevision,
          guard: { fn: 'cmd.tag_usage_guard', argument },
        });
      }
      const result = await store.append(stream, events, { expectedRevision });
      await sql`SELECT * FROM cmd.tag_usage_guard(${JSON.stringify([{ item: 0, arg: argument }])}::json)`.execute(
        db.kysely,
      );
      return result;
    },

    async count(tenantId: string, tagId: string): Promise<number> {
      const { rows } = await sql<{ n: number }>`
        SELECT greatest(medical_institution_count, 0) AS n FROM cmd.tag_usage
         WHERE tenant_id = ${tenantId} AND tag_id = ${tagId}`.execute(db.kysely);
      return rows[0]?.n ?? 0;
    },
  };
}
