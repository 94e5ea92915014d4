import { sql, type Transaction } from 'kysely';
import { uuidV5 } from '@renkei/domain';
import type { RecordedEvent } from '@renkei/event-store';
import type { WriteRow } from '../../shared/table.ts';
import { miHistoriesTable, type HistoryChange, type HistoryKind } from '../medical-institution-crm.tables.ts';
import type { CrmTables } from './crm-event.ts';

/** The change history: one row per event that changed an institution, keyed by the event id. */
export class CrmHistories {
  private readonly rows: WriteRow<typeof miHistoriesTable>[] = [];

  recorder(recorded: RecordedEvent) {
    return (institutionId: string, kind: HistoryKind, summary: string, changes: HistoryChange[], part?: string) =>
      this.rows.push({
        tenant_id: recorded.metadata.tenant_id,
        medical_institution_id: institutionId,
        id: part === undefined ? recorded.id : uuidV5(recorded.id.replaceAll('-', ''), part),
        kind,
        occurred_at: recorded.created_at.toISOString(),
        account_id: recorded.metadata.account_id ?? null,
        summary,
        changes,
        position_primary: recorded.position.primary.toString(),
        position_secondary: recorded.position.secondary.toString(),
      });
  }

  /**
   * One insert from column arrays (an import chunk brings thousands of lines; arrays skip building and
   * parsing one JSON document of them all). A plain insert, no `ON CONFLICT`: a line's id is its
   * event's (or derived from it and the institution, one line each), and a batch commits with the
   * checkpoint that moves past its events, so no line is ever written twice; the speculative insert
   * of `ON CONFLICT DO NOTHING` cost a seventh of the statement.
   */
  async write(trx: Transaction<unknown>, t: CrmTables): Promise<void> {
    const rows = this.rows;
    if (rows.length === 0) return;
    const column = <T>(f: (r: (typeof rows)[number]) => T) => sql.val(rows.map(f));
    await sql`INSERT INTO ${sql.table(t.mi_histories)} (tenant_id, medical_institution_id, id, kind, occurred_at,
           account_id, summary, changes, position_primary, position_secondary)
       SELECT * FROM unnest(${column((r) => r.tenant_id)}::uuid[], ${column((r) => r.medical_institution_id)}::uuid[],
                            ${column((r) => r.id)}::uuid[], ${column((r) => r.kind)}::text[],
                            ${column((r) => r.occurred_at)}::timestamptz[], ${column((r) => r.account_id)}::uuid[],
                            ${column((r) => r.summary)}::text[], ${column((r) => JSON.stringify(r.changes))}::jsonb[],
                            ${column((r) => r.position_primary)}::numeric[], ${column((r) => r.position_secondary)}::bigint[])`.execute(
      trx,
    );
  }
}
