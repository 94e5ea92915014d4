import { sql, type Transaction } from 'kysely';
import { formatLabelValue, stableJson, type LabelDefinition, type LabelValueData } from '@renkei/domain';
import { insertRows, type TableRow } from '../../shared/table.ts';
import { medicalInstitutionLabelsTable, type HistoryChange } from '../medical-institution-crm.tables.ts';
import { key, type Applied, type CrmEvent, type CrmEventOf, type CrmTables } from './crm-event.ts';

type LabelRow = TableRow<typeof medicalInstitutionLabelsTable>;

const labelDefinition = (id: string, l: LabelRow): LabelDefinition => ({
  id,
  name: l.name,
  componentType: l.component_type,
  selections: l.selections,
  areas: l.areas,
});

/** The same value (what `stableJson` equality meant, without serialising both sides). */
function sameLabelValue(x: LabelValueData, y: LabelValueData): boolean {
  return (
    x.label_id === y.label_id &&
    x.text_value === y.text_value &&
    x.integer_value === y.integer_value &&
    x.date_value === y.date_value &&
    x.time_value === y.time_value &&
    x.selection_id === y.selection_id &&
    x.own_department_id === y.own_department_id &&
    x.area_id === y.area_id &&
    x.selection_ids.length === y.selection_ids.length &&
    x.selection_ids.every((id, i) => id === y.selection_ids[i])
  );
}

/**
 * The institutions' label values and the tenant's label definitions they refer to. The definitions
 * of every tenant touched by the batch are loaded up front, so the history names labels and formats
 * values as they were when the change happened.
 */
export class CrmLabelValues {
  /**
   * (tenant, institution, label) → its value as of the event being applied (null: none): loaded up
   * front for every key the batch's label-value events touch, then kept current while folding.
   * `dirty` entries are written back.
   */
  private readonly labelValues = new Map<
    string,
    {
      tenant_id: string;
      medical_institution_id: string;
      label_id: string;
      value: LabelValueData | null;
      dirty: boolean;
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
    const parts = new CrmLabelValues(labels);
    await parts.loadValues(trx, t, events);
    return parts;
  }

  /**
   * The stored values of every (tenant, institution, label) the batch's label-value events touch, in
   * one statement: the history's "before" comes from here (an import's rows carry no previous values,
   * and a hand edit's `previous` cannot know values an import set since).
   */
  private async loadValues(
    trx: Transaction<unknown>,
    t: CrmTables,
    events: readonly { tenantId: string; event: CrmEvent }[],
  ): Promise<void> {
    const touch = (tenantId: string, institutionId: string, labelId: string) => {
      const k = key(tenantId, institutionId, labelId);
      if (!this.labelValues.has(k))
        this.labelValues.set(k, {
          tenant_id: tenantId,
          medical_institution_id: institutionId,
          label_id: labelId,
          value: null,
          dirty: false,
        });
    };
    for (const { tenantId, event } of events) {
      if (event.type === 'MedicalInstitutionLabelValuesChanged') {
        const d = event.data;
        for (const v of d.values) touch(tenantId, d.medical_institution_id, v.label_id);
        for (const id of d.removed_label_ids) touch(tenantId, d.medical_institution_id, id);
      } else if (event.type === 'MedicalInstitutionLabelValuesImported') {
        for (const row of event.data.rows)
          for (const v of row.values) touch(tenantId, row.medical_institution_id, v.label_id);
      }
    }
    if (this.labelValues.size === 0) return;
    const keys = [...this.labelValues.values()];
    const { rows } = await sql<LabelValueData & { tenant_id: string; medical_institution_id: string }>`
      SELECT m.tenant_id, m.medical_institution_id, m.label_id, m.text_value, m.integer_value,
             m.date_value::text AS date_value, m.time_value, m.selection_id, to_jsonb(m.selection_ids) AS selection_ids,
             m.own_department_id, m.area_id
        FROM unnest(${sql.val(keys.map((k) => k.tenant_id))}::uuid[],
                    ${sql.val(keys.map((k) => k.medical_institution_id))}::uuid[],
                    ${sql.val(keys.map((k) => k.label_id))}::uuid[]) AS d(tenant_id, medical_institution_id, label_id)
        JOIN ${sql.table(t.mi_label_values)} AS m
          ON m.tenant_id = d.tenant_id AND m.medical_institution_id = d.medical_institution_id AND m.label_id = d.label_id`.execute(
      trx,
    );
    for (const { tenant_id, medical_institution_id, ...value } of rows)
      this.labelValues.get(key(tenant_id, medical_institution_id, value.label_id))!.value = value;
  }

  /**
   * Sets (or clears, with null) one value and answers the change for the history, or null when the
   * value stays what it was.
   */
  private set(tenantId: string, institutionId: string, labelId: string, after: LabelValueData | null) {
    const entry = this.labelValues.get(key(tenantId, institutionId, labelId))!;
    const before = entry.value;
    if (before === null ? after === null : after !== null && stableJson(before) === stableJson(after)) return null;
    entry.value = after;
    entry.dirty = true;
    const l = this.labels.get(tenantId)!.get(labelId);
    const definition = l && labelDefinition(labelId, l);
    return {
      field: `label:${labelId}`,
      label: l?.name ?? 'ラベル',
      before: before ? formatLabelValue(before, definition) : null,
      after: after ? formatLabelValue(after, definition) : null,
    };
  }

  applyValues(event: CrmEventOf<'MedicalInstitutionLabelValuesChanged'>, a: Applied): void {
    const d = event.data;
    const changes = [
      ...d.values.map((v) => this.set(a.tenantId, d.medical_institution_id, v.label_id, v)),
      ...d.removed_label_ids.map((id) => this.set(a.tenantId, d.medical_institution_id, id, null)),
    ].filter((c) => c !== null);
    if (changes.length === 0) return;
    a.history(
      d.medical_institution_id,
      'label_values_changed',
      d.import_id ? 'ラベルの値をインポートで変更' : 'ラベルの値を変更',
      changes,
    );
  }

  /**
   * A chunk of an import: its rows in file order over the values as they are. The history gets one
   * line per institution the chunk changed (the chunk committed as one, so nobody saw the values
   * between two rows of one institution), from its first value before to its last after.
   *
   * The rows are folded raw (compared field by field) and each (institution, label) is formatted for
   * the history once, at the end: a chunk is thousands of rows, and formatting or serialising every
   * row's before and after was a fifth of the projection's time.
   */
  applyImported(event: CrmEventOf<'MedicalInstitutionLabelValuesImported'>, a: Applied): void {
    /** institution → label → its value before this event. */
    const touched = new Map<string, Map<string, LabelValueData | null>>();
    for (const row of event.data.rows) {
      let before = touched.get(row.medical_institution_id);
      for (const v of row.values) {
        const entry = this.labelValues.get(key(a.tenantId, row.medical_institution_id, v.label_id))!;
        if (entry.value !== null && sameLabelValue(entry.value, v)) continue;
        if (!before) touched.set(row.medical_institution_id, (before = new Map()));
        if (!before.has(v.label_id)) before.set(v.label_id, entry.value);
        entry.value = v;
        entry.dirty = true;
      }
    }
    const labels = this.labels.get(a.tenantId)!;
    for (const [institutionId, befores] of touched) {
      const list: HistoryChange[] = [];
      for (const [labelId, before] of befores) {
        const after = this.labelValues.get(key(a.tenantId, institutionId, labelId))!.value;
        const l = labels.get(labelId);
        const definition = l && labelDefinition(labelId, l);
        const b = before ? formatLabelValue(before, definition) : null;
        const f = after ? formatLabelValue(after, definition) : null;
        if (b !== f) list.push({ field: `label:${labelId}`, label: l?.name ?? 'ラベル', before: b, after: f });
      }
      if (list.length === 0) continue;
      a.history(institutionId, 'label_values_changed', 'ラベルの値をインポートで変更', list, institutionId);
    }
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
    // The DELETE by label runs first in `write`; values set after the deletion in this batch are not
    // written (the label is gone, and no later event may set one).
    for (const entry of this.labelValues.values())
      if (entry.tenant_id === a.tenantId && entry.label_id === labelId) {
        entry.value = null;
        entry.dirty = false;
      }
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
    // Cleared values are deleted, set ones upserted from column arrays: an import rewrites thousands
    // of values a batch, and an upsert of an unchanged key touches no index where delete + insert
    // added two entries per value; arrays skip building and parsing a JSON document of the rows.
    const dirty = [...this.labelValues.values()].filter((r) => r.dirty);
    const cleared = dirty.filter((r) => r.value === null);
    if (cleared.length > 0) {
      await sql`DELETE FROM ${sql.table(t.mi_label_values)} AS m
         USING unnest(${sql.val(cleared.map((r) => r.tenant_id))}::uuid[],
                      ${sql.val(cleared.map((r) => r.medical_institution_id))}::uuid[],
                      ${sql.val(cleared.map((r) => r.label_id))}::uuid[]) AS d(tenant_id, medical_institution_id, label_id)
         WHERE m.tenant_id = d.tenant_id AND m.medical_institution_id = d.medical_institution_id AND m.label_id = d.label_id`.execute(
        trx,
      );
    }
    const set = dirty.flatMap((r) => (r.value ? [{ ...r, value: r.value }] : []));
    if (set.length > 0) {
      const column = <T>(f: (v: LabelValueData) => T) => sql.val(set.map((r) => f(r.value)));
      await sql`INSERT INTO ${sql.table(t.mi_label_values)} (tenant_id, medical_institution_id, label_id, text_value,
             integer_value, date_value, time_value, selection_id, selection_ids, own_department_id, area_id)
         SELECT tenant_id, medical_institution_id, label_id, text_value, integer_value, date_value, time_value,
                selection_id, selection_ids::uuid[], own_department_id, area_id
           FROM unnest(${sql.val(set.map((r) => r.tenant_id))}::uuid[],
                       ${sql.val(set.map((r) => r.medical_institution_id))}::uuid[],
                       ${column((v) => v.label_id)}::uuid[], ${column((v) => v.text_value)}::text[],
                       ${column((v) => v.integer_value)}::int[], ${column((v) => v.date_value)}::date[],
                       ${column((v) => v.time_value)}::text[], ${column((v) => v.selection_id)}::uuid[],
                       ${column((v) => `{${v.selection_ids.join(',')}}`)}::text[],
                       ${column((v) => v.own_department_id)}::uuid[], ${column((v) => v.area_id)}::uuid[])
             AS r(tenant_id, medical_institution_id, label_id, text_value, integer_value, date_value, time_value,
                  selection_id, selection_ids, own_department_id, area_id)
         ON CONFLICT (tenant_id, medical_institution_id, label_id) DO UPDATE SET
           text_value = excluded.text_value, integer_value = excluded.integer_value,
           date_value = excluded.date_value, time_value = excluded.time_value,
           selection_id = excluded.selection_id, selection_ids = excluded.selection_ids,
           own_department_id = excluded.own_department_id, area_id = excluded.area_id`.execute(trx);
    }

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
