import { sql, type Transaction } from 'kysely';
import { formatLabelValue, type LabelDefinition, type LabelValueData } from '@renkei/domain';
import { insertRows, type TableRow, type WriteRow } from '../../shared/table.ts';
import { medicalInstitutionLabelsTable, miLabelValuesTable } from '../medical-institution-crm.tables.ts';
import { key, type Applied, type CrmEvent, type CrmEventOf, type CrmTables } from './crm-event.ts';

type LabelRow = TableRow<typeof medicalInstitutionLabelsTable>;

/**
 * The institutions' label values and the tenant's label definitions they refer to. The definitions
 * of every tenant touched by the batch are loaded up front, so the history names labels and formats
 * values as they were when the change happened.
 */
export class CrmLabelValues {
  /** (tenant, institution, label) → value after the batch, or null when cleared. */
  private readonly labelValues = new Map<
    string,
    {
      tenant_id: string;
      medical_institution_id: string;
      label_id: string;
      value: WriteRow<typeof miLabelValuesTable> | null;
    }
  >();
  private readonly deletedLabels = new Map<string, { tenant_id: string; label_id: string }>();
  /** tenant → its labels; only tenants whose labels changed in this batch are written back. */
  private readonly labelsChanged = new Set<string>();

  private constructor(private readonly labels: Map<string, Map<string, LabelRow>>) {}

  static async load(
    trx: Transaction<unknown>,
    t: CrmTables,
    events: readonly { tenantId: string; event: CrmEvent }[],
  ): Promise<CrmLabelValues> {
    const tenants = new Set<string>();
    for (const { tenantId, event } of events)
      if (event.type.startsWith('MedicalInstitutionLabel')) tenants.add(tenantId);
    const labels = new Map<string, Map<string, LabelRow>>([...tenants].map((id) => [id, new Map()]));
    if (tenants.size > 0) {
      const { rows } = await sql<LabelRow>`
        SELECT tenant_id, id, name, description, component_type, sort_order, selections, areas, version
          FROM ${sql.table(t.medical_institution_labels)} WHERE tenant_id = ANY(${sql.val([...tenants])}::uuid[])`.execute(
        trx,
      );
      for (const r of rows) labels.get(r.tenant_id)!.set(r.id, r);
    }
    return new CrmLabelValues(labels);
  }

  applyValues(event: CrmEventOf<'MedicalInstitutionLabelValuesChanged'>, a: Applied): void {
    const d = event.data;
    const touched = [...d.values.map((v) => v.label_id), ...d.removed_label_ids];
    const after = new Map<string, LabelValueData>(d.values.map((v) => [v.label_id, v]));
    for (const labelId of touched) {
      const v = after.get(labelId);
      this.labelValues.set(key(a.tenantId, d.medical_institution_id, labelId), {
        tenant_id: a.tenantId,
        medical_institution_id: d.medical_institution_id,
        label_id: labelId,
        value: v ? { ...v, tenant_id: a.tenantId, medical_institution_id: d.medical_institution_id } : null,
      });
    }
    const labels = this.labels.get(a.tenantId)!;
    const definition = (id: string): LabelDefinition | undefined => {
      const l = labels.get(id);
      return l && { id, name: l.name, componentType: l.component_type, selections: l.selections, areas: l.areas };
    };
    const before = new Map(d.previous.map((v) => [v.label_id, v]));
    const changes = touched.map((id) => ({
      field: `label:${id}`,
      label: labels.get(id)?.name ?? 'ラベル',
      before: before.has(id) ? formatLabelValue(before.get(id)!, definition(id)) : null,
      after: after.has(id) ? formatLabelValue(after.get(id)!, definition(id)) : null,
    }));
    a.history(
      d.medical_institution_id,
      'label_values_changed',
      d.import_id ? 'ラベルの値をインポートで変更' : 'ラベルの値を変更',
      changes,
    );
  }

  applyLabelDefined(
    event: CrmEventOf<'MedicalInstitutionLabelCreated' | 'MedicalInstitutionLabelUpdated'>,
    a: Applied,
  ): void {
    const d = event.data;
    const labels = this.labels.get(a.tenantId)!;
    const existing = labels.get(d.label_id);
    const sortOrder = existing
      ? existing.sort_order
      : Math.max(-1, ...[...labels.values()].map((l) => l.sort_order)) + 1;
    labels.set(d.label_id, {
      tenant_id: a.tenantId,
      id: d.label_id,
      name: d.name,
      description: d.description,
      // An update never changes the component type (v1 kept the stored one too).
      component_type: existing ? existing.component_type : d.component_type,
      sort_order: sortOrder,
      selections: d.selections,
      areas: d.areas,
      version: a.revision,
    });
    this.labelsChanged.add(a.tenantId);
  }

  applyLabelDeleted(event: CrmEventOf<'MedicalInstitutionLabelDeleted'>, a: Applied): void {
    const labelId = event.data.label_id;
    this.labels.get(a.tenantId)!.delete(labelId);
    this.labelsChanged.add(a.tenantId);
    this.deletedLabels.set(key(a.tenantId, labelId), { tenant_id: a.tenantId, label_id: labelId });
    for (const entry of this.labelValues.values())
      if (entry.tenant_id === a.tenantId && entry.label_id === labelId) entry.value = null;
  }

  applyLabelsReordered(event: CrmEventOf<'MedicalInstitutionLabelsReordered'>, a: Applied): void {
    const labels = this.labels.get(a.tenantId)!;
    for (const [i, id] of event.data.label_ids.entries()) {
      const l = labels.get(id);
      if (l) l.sort_order = i;
    }
    this.labelsChanged.add(a.tenantId);
  }

  async write(trx: Transaction<unknown>, t: CrmTables): Promise<void> {
    if (this.deletedLabels.size > 0) {
      await sql`DELETE FROM ${sql.table(t.mi_label_values)} AS m
         USING jsonb_to_recordset(${JSON.stringify([...this.deletedLabels.values()])}::jsonb) AS d(tenant_id uuid, label_id uuid)
         WHERE m.tenant_id = d.tenant_id AND m.label_id = d.label_id`.execute(trx);
    }
    const valueRows = [...this.labelValues.values()];
    if (valueRows.length > 0) {
      await sql`DELETE FROM ${sql.table(t.mi_label_values)} AS m
         USING jsonb_to_recordset(${JSON.stringify(valueRows.map(({ value: _, ...k }) => k))}::jsonb)
               AS d(tenant_id uuid, medical_institution_id uuid, label_id uuid)
         WHERE m.tenant_id = d.tenant_id AND m.medical_institution_id = d.medical_institution_id AND m.label_id = d.label_id`.execute(
        trx,
      );
    }
    await insertRows(
      trx,
      t.mi_label_values,
      miLabelValuesTable,
      valueRows.flatMap((r) => (r.value ? [r.value] : [])),
    );

    if (this.labelsChanged.size > 0) {
      const tenants = [...this.labelsChanged];
      await sql`DELETE FROM ${sql.table(t.medical_institution_labels)} WHERE tenant_id = ANY(${sql.val(tenants)}::uuid[])`.execute(
        trx,
      );
      await insertRows(
        trx,
        t.medical_institution_labels,
        medicalInstitutionLabelsTable,
        tenants.flatMap((tenant) => [...this.labels.get(tenant)!.values()]),
      );
    }
  }
}
