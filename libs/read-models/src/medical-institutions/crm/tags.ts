import { sql, type Transaction } from 'kysely';
import { insertRows } from '../../shared/table.ts';
import { miTagsTable } from '../medical-institution-crm.tables.ts';
import { key, type Applied, type CrmEventOf, type CrmTables } from './crm-event.ts';

/** The tags of each institution. */
export class CrmTags {
  /** (tenant, institution, tag) → present after the batch or not. */
  private readonly tags = new Map<
    string,
    { tenant_id: string; medical_institution_id: string; tag_id: string; present: boolean }
  >();
  private readonly deletedTags = new Map<string, { tenant_id: string; tag_id: string }>();

  applyTagsChanged(event: CrmEventOf<'MedicalInstitutionTagsChanged'>, a: Applied): void {
    const d = event.data;
    for (const [ids, present] of [
      [d.removed_tag_ids, false],
      [d.added_tag_ids, true],
    ] as const) {
      for (const tagId of ids)
        this.tags.set(key(a.tenantId, d.medical_institution_id, tagId), {
          tenant_id: a.tenantId,
          medical_institution_id: d.medical_institution_id,
          tag_id: tagId,
          present,
        });
    }
    // Tag names are resolved when the history is read (tags can be renamed).
    a.history(d.medical_institution_id, 'tags_changed', 'タグを変更', [
      {
        field: 'tags',
        label: 'タグ',
        before: null,
        after: null,
        added_tag_ids: d.added_tag_ids,
        removed_tag_ids: d.removed_tag_ids,
      },
    ]);
  }

  /** Deleting a tag removes it from every institution (no event per institution is recorded). */
  applyTagDeleted(event: CrmEventOf<'TagDeleted'>, a: Applied): void {
    const tagId = event.data.tag_id;
    this.deletedTags.set(key(a.tenantId, tagId), { tenant_id: a.tenantId, tag_id: tagId });
    for (const entry of this.tags.values())
      if (entry.tenant_id === a.tenantId && entry.tag_id === tagId) entry.present = false;
  }

  async write(trx: Transaction<unknown>, t: CrmTables): Promise<void> {
    if (this.deletedTags.size > 0) {
      await sql`DELETE FROM ${sql.table(t.mi_tags)} AS m
         USING jsonb_to_recordset(${JSON.stringify([...this.deletedTags.values()])}::jsonb) AS d(tenant_id uuid, tag_id uuid)
         WHERE m.tenant_id = d.tenant_id AND m.tag_id = d.tag_id`.execute(trx);
    }
    const tagRows = [...this.tags.values()];
    const removedTags = tagRows.filter((r) => !r.present);
    if (removedTags.length > 0) {
      await sql`DELETE FROM ${sql.table(t.mi_tags)} AS m
         USING jsonb_to_recordset(${JSON.stringify(removedTags)}::jsonb) AS d(tenant_id uuid, medical_institution_id uuid, tag_id uuid)
         WHERE m.tenant_id = d.tenant_id AND m.medical_institution_id = d.medical_institution_id AND m.tag_id = d.tag_id`.execute(
        trx,
      );
    }
    await insertRows(
      trx,
      t.mi_tags,
      miTagsTable,
      tagRows.filter((r) => r.present).map(({ present: _, ...row }) => row),
      { onConflict: sql`ON CONFLICT DO NOTHING` },
    );
  }
}
