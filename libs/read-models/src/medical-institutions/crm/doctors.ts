import { sql, type Transaction } from 'kysely';
import type { DoctorFields } from '@renkei/domain';
import { insertRows, type TableRow, type WriteRow } from '../../shared/table.ts';
import { miDoctorsTable } from '../medical-institution-crm.tables.ts';
import { key, type Applied, type CrmEvent, type CrmEventOf, type CrmTables } from './crm-event.ts';

type DoctorRow = WriteRow<typeof miDoctorsTable>;
type ShownField = 'name' | 'division' | 'position' | 'honorific' | 'email' | 'phone_number' | 'profile' | 'memo';

const doctorFieldLabels: readonly (readonly [ShownField, string])[] = [
  ['name', '氏名'],
  ['division', '診療科・所属'],
  ['position', '役職'],
  ['honorific', '敬称'],
  ['email', 'メールアドレス'],
  ['phone_number', '電話番号'],
  ['profile', 'プロフィール'],
  ['memo', 'メモ'],
];

/** The doctors of each institution; a doctor's fields before the batch are loaded for the history. */
export class CrmDoctors {
  private readonly doctors = new Map<string, DoctorRow | { removed: true; tenant_id: string; id: string }>();

  private constructor(private readonly known: Map<string, Pick<DoctorFields, ShownField>>) {}

  static async load(
    trx: Transaction<unknown>,
    t: CrmTables,
    events: readonly { event: CrmEvent }[],
  ): Promise<CrmDoctors> {
    const ids = new Set<string>();
    for (const { event } of events)
      if (event.type === 'DoctorAdded' || event.type === 'DoctorUpdated') ids.add(event.data.doctor_id);
    const known = new Map<string, Pick<DoctorFields, ShownField>>();
    if (ids.size > 0) {
      const { rows } = await sql<TableRow<typeof miDoctorsTable>>`
        SELECT tenant_id, id, medical_institution_id, name, division, position, honorific, email, phone_number,
               profile, memo, updated_at, version
          FROM ${sql.table(t.mi_doctors)} WHERE id = ANY(${sql.val([...ids])}::uuid[])`.execute(trx);
      for (const r of rows) known.set(key(r.tenant_id, r.id), r);
    }
    return new CrmDoctors(known);
  }

  applyDoctor(event: CrmEventOf<'DoctorAdded' | 'DoctorUpdated'>, a: Applied): void {
    const d = event.data;
    const k = key(a.tenantId, d.doctor_id);
    const current = this.doctors.get(k);
    const prev = current ? ('removed' in current ? undefined : current) : this.known.get(k);
    this.doctors.set(k, {
      tenant_id: a.tenantId,
      id: d.doctor_id,
      medical_institution_id: d.medical_institution_id,
      name: d.name,
      division: d.division,
      position: d.position,
      honorific: d.honorific,
      email: d.email,
      phone_number: d.phone_number,
      profile: d.profile,
      memo: d.memo,
      updated_at: a.at,
      version: a.revision,
    });
    const changes = doctorFieldLabels
      .map(([field, label]) => ({ field, label, before: prev ? (prev[field] ?? null) : null, after: d[field] ?? null }))
      .filter((c) => c.before !== c.after && !(prev === undefined && (c.after === null || c.after === '')));
    const added = event.type === 'DoctorAdded';
    a.history(
      d.medical_institution_id,
      added ? 'doctor_added' : 'doctor_changed',
      added ? `医師「${d.name}」を登録` : `医師「${d.name}」の情報を変更`,
      changes,
    );
  }

  applyDoctorRemoved(event: CrmEventOf<'DoctorRemoved'>, a: Applied): void {
    const d = event.data;
    this.doctors.set(key(a.tenantId, d.doctor_id), { removed: true, tenant_id: a.tenantId, id: d.doctor_id });
    a.history(d.medical_institution_id, 'doctor_removed', `医師「${d.name}」を削除`, [
      { field: 'name', label: '氏名', before: d.name, after: null },
    ]);
  }

  async write(trx: Transaction<unknown>, t: CrmTables): Promise<void> {
    const rows = [...this.doctors.values()];
    const removed = rows.filter((r) => 'removed' in r);
    if (removed.length > 0) {
      await sql`DELETE FROM ${sql.table(t.mi_doctors)} AS m
         USING jsonb_to_recordset(${JSON.stringify(removed)}::jsonb) AS d(tenant_id uuid, id uuid)
         WHERE m.tenant_id = d.tenant_id AND m.id = d.id`.execute(trx);
    }
    await insertRows(
      trx,
      t.mi_doctors,
      miDoctorsTable,
      rows.filter((r): r is DoctorRow => !('removed' in r)),
      {
        onConflict: sql`ON CONFLICT (tenant_id, id) DO UPDATE SET medical_institution_id = excluded.medical_institution_id,
        name = excluded.name, division = excluded.division, position = excluded.position, honorific = excluded.honorific,
        email = excluded.email, phone_number = excluded.phone_number, profile = excluded.profile, memo = excluded.memo,
        updated_at = excluded.updated_at, version = excluded.version`,
      },
    );
  }
}
