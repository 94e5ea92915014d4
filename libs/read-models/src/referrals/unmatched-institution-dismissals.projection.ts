import { sql } from 'kysely';
import { defineProjection } from '@renkei/projections';
import { eventDecoder, institutionDismissalEventSchemas } from '@renkei/domain';
import { column, createTables, defineTable, insertRows, tableNames, type KyselyTables } from '../shared/table.ts';

/**
 * The (code, name) pairs of the lists that owners set aside as not to be matched, keyed as the
 * referral facts and hand matches key them ('' for a missing part). The unmatched list leaves them out.
 */
const unmatchedInstitutionDismissalsTable = defineTable({
  name: 'unmatched_institution_dismissals',
  columns: {
    tenant_id: column.uuid(),
    institution_code: column.text(),
    institution_name: column.text(),
    dismissed_at: column.timestamptz(),
  },
  primaryKey: ['tenant_id', 'institution_code', 'institution_name'],
});

export type UnmatchedInstitutionDismissalsTables = KyselyTables<typeof unmatchedInstitutionDismissalsTable>;

const decode = eventDecoder(institutionDismissalEventSchemas);

/**
 * Its own projection rather than a table of the referrals projection: a decision about the to-do list
 * changes no referral, and adding a table there would rebuild every tenant's referral read models.
 */
export const unmatchedInstitutionDismissalsProjection = defineProjection({
  name: 'unmatched_institution_dismissals',
  version: 1,
  eventTypes: decode.types,
  tables: tableNames([unmatchedInstitutionDismissalsTable]),
  setup: (trx, t) => createTables(trx, [unmatchedInstitutionDismissalsTable], t),
  async handle(trx, events, t) {
    // The batch's last word per pair: set aside (with when) or put back.
    const latest = new Map<string, { tenant_id: string; code: string; name: string; at: string | null }>();
    for (const recorded of events) {
      const event = decode(recorded);
      const tenantId = recorded.metadata.tenant_id;
      const code = event.data.institution_code ?? '';
      const name = event.data.institution_name ?? '';
      switch (event.type) {
        case 'UnmatchedInstitutionDismissed':
        case 'UnmatchedInstitutionRestored':
          latest.set(JSON.stringify([tenantId, code, name]), {
            tenant_id: tenantId,
            code,
            name,
            at: event.type === 'UnmatchedInstitutionDismissed' ? recorded.created_at.toISOString() : null,
          });
          break;
        default: {
          const never: never = event;
          throw new Error(`unmatched_institution_dismissals: unexpected event ${JSON.stringify(never)}`);
        }
      }
    }
    const all = [...latest.values()];
    if (all.length === 0) return;
    await sql`
      DELETE FROM ${sql.table(t.unmatched_institution_dismissals)} AS cur
       USING unnest(${sql.val(all.map((r) => r.tenant_id))}::uuid[], ${sql.val(all.map((r) => r.code))}::text[],
                    ${sql.val(all.map((r) => r.name))}::text[]) AS d(tenant_id, code, name)
       WHERE cur.tenant_id = d.tenant_id AND cur.institution_code = d.code AND cur.institution_name = d.name
    `.execute(trx);
    const dismissed = all.flatMap((r) =>
      r.at ? [{ tenant_id: r.tenant_id, institution_code: r.code, institution_name: r.name, dismissed_at: r.at }] : [],
    );
    if (dismissed.length > 0)
      await insertRows(trx, t.unmatched_institution_dismissals, unmatchedInstitutionDismissalsTable, dismissed);
  },
});
