import { sql, type Transaction } from 'kysely';
import type { PhaseMastersReplaced } from '@renkei/domain';
import { insertRows, type WriteRow } from '../../shared/table.ts';
import { miNotesTable, miPhasesTable, phaseMastersTable } from '../medical-institution-crm.tables.ts';
import { key, type Applied, type CrmEventOf, type CrmTables } from './crm-event.ts';

/** Memo and special note, the institutions' phase, and the tenant's phase masters. */
export class CrmNotesAndPhases {
  private readonly notes = new Map<string, WriteRow<typeof miNotesTable>>();
  private readonly phases = new Map<string, WriteRow<typeof miPhasesTable>>();
  /** tenant → phase master ids still allowed (intersection of every replacement in the batch). */
  private readonly phaseMasterAllowed = new Map<string, Set<string>>();
  private readonly phaseMasters = new Map<string, PhaseMastersReplaced['phase_masters']>();

  applyNote(
    event: CrmEventOf<'MedicalInstitutionMemoChanged' | 'MedicalInstitutionSpecialNoteChanged'>,
    a: Applied,
  ): void {
    const memo = event.type === 'MedicalInstitutionMemoChanged';
    const d = event.data;
    const kind = memo ? 'memo' : 'special_note';
    this.notes.set(key(a.tenantId, d.medical_institution_id, kind), {
      tenant_id: a.tenantId,
      medical_institution_id: d.medical_institution_id,
      kind,
      content: d.content,
      updated_by: a.accountId,
      updated_at: a.at,
      version: a.revision + 1,
    });
    const label = memo ? 'メモ' : '特記事項';
    a.history(d.medical_institution_id, memo ? 'memo_changed' : 'special_note_changed', `${label}を更新`, [
      { field: kind, label, before: d.previous_content, after: d.content },
    ]);
  }

  applyPhase(event: CrmEventOf<'MedicalInstitutionPhaseChanged'>, a: Applied): void {
    const d = event.data;
    this.phases.set(key(a.tenantId, d.medical_institution_id), {
      tenant_id: a.tenantId,
      medical_institution_id: d.medical_institution_id,
      phase_master_id: d.phase_master_id,
      changed_by: a.accountId,
      changed_at: a.at,
    });
    a.history(
      d.medical_institution_id,
      'phase_changed',
      d.phase_name ? `フェーズを「${d.phase_name}」に変更` : 'フェーズを解除',
      [{ field: 'phase', label: 'フェーズ', before: d.previous_phase_name, after: d.phase_name }],
    );
  }

  applyPhaseMasters(event: CrmEventOf<'PhaseMastersReplaced'>, a: Applied): void {
    const list = event.data.phase_masters;
    const ids = new Set(list.map((p) => p.id));
    this.phaseMasters.set(a.tenantId, list);
    const allowed = this.phaseMasterAllowed.get(a.tenantId);
    this.phaseMasterAllowed.set(a.tenantId, allowed ? new Set([...allowed].filter((id) => ids.has(id))) : ids);
    // A deleted master takes the institutions' phase with it (contract: they lose their phase).
    for (const row of this.phases.values())
      if (row.tenant_id === a.tenantId && row.phase_master_id !== null && !ids.has(row.phase_master_id))
        row.phase_master_id = null;
  }

  async write(trx: Transaction<unknown>, t: CrmTables): Promise<void> {
    await insertRows(trx, t.mi_notes, miNotesTable, [...this.notes.values()], {
      onConflict: sql`ON CONFLICT (tenant_id, medical_institution_id, kind) DO UPDATE SET content = excluded.content,
        updated_by = excluded.updated_by, updated_at = excluded.updated_at, version = excluded.version`,
    });

    const tenantsReplacingPhases = [...this.phaseMasterAllowed.entries()];
    if (tenantsReplacingPhases.length > 0) {
      await sql`UPDATE ${sql.table(t.mi_phases)} AS p SET phase_master_id = NULL
          FROM jsonb_to_recordset(${JSON.stringify(tenantsReplacingPhases.map(([tenant_id, ids]) => ({ tenant_id, ids: [...ids] })))}::jsonb)
               AS r(tenant_id uuid, ids uuid[])
         WHERE p.tenant_id = r.tenant_id AND p.phase_master_id IS NOT NULL AND NOT (p.phase_master_id = ANY(r.ids))`.execute(
        trx,
      );
      const masters = [...this.phaseMasters.entries()];
      await sql`DELETE FROM ${sql.table(t.phase_masters)} WHERE tenant_id = ANY(${sql.val(masters.map(([id]) => id))}::uuid[])`.execute(
        trx,
      );
      await insertRows(
        trx,
        t.phase_masters,
        phaseMastersTable,
        masters.flatMap(([tenant_id, list]) => list.map((p, i) => ({ tenant_id, ...p, sort_order: i }))),
      );
    }
    await insertRows(trx, t.mi_phases, miPhasesTable, [...this.phases.values()], {
      onConflict: sql`ON CONFLICT (tenant_id, medical_institution_id) DO UPDATE SET phase_master_id = excluded.phase_master_id,
        changed_by = excluded.changed_by, changed_at = excluded.changed_at`,
    });
  }
}
