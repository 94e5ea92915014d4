import { sql, type Transaction } from 'kysely';
import { uuidV5 } from '@renkei/domain';
import type { RecordedEvent } from '@renkei/event-store';
import { insertRows, type WriteRow } from '../../shared/table.ts';
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

  async write(trx: Transaction<unknown>, t: CrmTables): Promise<void> {
    await insertRows(trx, t.mi_histories, miHistoriesTable, this.rows, { onConflict: sql`ON CONFLICT DO NOTHING` });
  }
}
