import { sql, type RawBuilder, type Transaction } from 'kysely';
import { defineProjection, type ProjectionTables } from '@renkei/projections';
import {
  formatLabelValue,
  type LabelDefinition,
  type DoctorFields,
  type LabelValueData,
  type MedicalInstitutionCrmEvent,
  type OwnDepartmentsReplaced,
  type PhaseMastersReplaced,
  type MedicalInstitutionLabelEvent,
  type TagDeleted,
} from '@renkei/domain';
import type { RecordedEvent } from '@renkei/event-store';

const tables = [
  'mi_notes',
  'mi_phases',
  'mi_tags',
  'mi_label_values',
  'mi_doctors',
  'mi_histories',
  'mi_accounts',
  'phase_masters',
  'own_departments',
  'medical_institution_labels',
] as const;
type T = ProjectionTables<(typeof tables)[number]>;

type AccountEvent = { type: 'AccountRegistered' | 'AccountUpdated'; data: { account_id: string; username: string } };
type Handled =
  MedicalInstitutionCrmEvent | MedicalInstitutionLabelEvent | AccountEvent | { type: 'TagDeleted'; data: TagDeleted };

/**
 * `medical_institution_crm`: every tenant's CRM data about institutions (memo, special note, phase,
 * tags, label values, doctors), the change history read from those events, and the settings they
 * refer to (labels, phase masters, own departments, account names for "who"). One projection, so
 * the history can name labels and phases as they were when the change happened.
 */
export const medicalInstitutionCrmProjection = defineProjection({
  name: 'medical_institution_crm',
  // v2: batched writes (v1 wrote per event) and TagDeleted. v3: histories keep their event position.
  version: 3,
  eventTypes: [
    'MedicalInstitutionMemoChanged',
    'MedicalInstitutionSpecialNoteChanged',
    'MedicalInstitutionPhaseChanged',
    'MedicalInstitutionTagsChanged',
    'MedicalInstitutionLabelValuesChanged',
    'DoctorAdded',
    'DoctorUpdated',
    'DoctorRemoved',
    'OwnDepartmentsReplaced',
    'PhaseMastersReplaced',
    'MedicalInstitutionLabelCreated',
    'MedicalInstitutionLabelUpdated',
    'MedicalInstitutionLabelDeleted',
    'MedicalInstitutionLabelsReordered',
    'AccountRegistered',
    'AccountUpdated',
    'TagDeleted',
  ],
  tables,
  async setup(trx, t) {
    const ddl = [
      sql`CREATE TABLE ${sql.table(t.mi_notes)} (
        tenant_id uuid NOT NULL, medical_institution_id uuid NOT NULL, kind text NOT NULL,
        content text NOT NULL, updated_by uuid, updated_at timestamptz NOT NULL, version int NOT NULL,
        PRIMARY KEY (tenant_id, medical_institution_id, kind))`,
      sql`CREATE TABLE ${sql.table(t.mi_phases)} (
        tenant_id uuid NOT NULL, medical_institution_id uuid NOT NULL, phase_master_id uuid,
        changed_by uuid, changed_at timestamptz NOT NULL,
        PRIMARY KEY (tenant_id, medical_institution_id))`,
      sql`CREATE INDEX ON ${sql.table(t.mi_phases)} (tenant_id, phase_master_id)`,
      sql`CREATE TABLE ${sql.table(t.mi_tags)} (
        tenant_id uuid NOT NULL, medical_institution_id uuid NOT NULL, tag_id uuid NOT NULL,
        PRIMARY KEY (tenant_id, medical_institution_id, tag_id))`,
      sql`CREATE INDEX ON ${sql.table(t.mi_tags)} (tenant_id, tag_id, medical_institution_id)`,
      sql`CREATE TABLE ${sql.table(t.mi_label_values)} (
        tenant_id uuid NOT NULL, medical_institution_id uuid NOT NULL, label_id uuid NOT NULL,
        text_value text, integer_value int, date_value date, time_value text, selection_id uuid,
        selection_ids uuid[] NOT NULL DEFAULT '{}', own_department_id uuid, area_id uuid,
        PRIMARY KEY (tenant_id, medical_institution_id, label_id))`,
      sql`CREATE INDEX ON ${sql.table(t.mi_label_values)} (tenant_id, label_id, medical_institution_id)`,
      sql`CREATE TABLE ${sql.table(t.mi_doctors)} (
        tenant_id uuid NOT NULL, id uuid NOT NULL, medical_institution_id uuid NOT NULL,
        name text NOT NULL, division text NOT NULL, position text NOT NULL, honorific text NOT NULL,
        email text, phone_number text, profile text NOT NULL, memo text NOT NULL,
        updated_at timestamptz NOT NULL, version int NOT NULL, PRIMARY KEY (tenant_id, id))`,
      sql`CREATE INDEX ON ${sql.table(t.mi_doctors)} (tenant_id, medical_institution_id)`,
      sql`CREATE TABLE ${sql.table(t.mi_histories)} (
        tenant_id uuid NOT NULL, medical_institution_id uuid NOT NULL, id uuid NOT NULL,
        kind text NOT NULL, occurred_at timestamptz NOT NULL, account_id uuid, summary text NOT NULL,
        changes jsonb NOT NULL, position_primary numeric NOT NULL, position_secondary bigint NOT NULL,
        PRIMARY KEY (tenant_id, id))`,
      // Newest first in event order: two changes in the same millisecond (or one transaction, whose
      // created_at is its start) still come back in the order they happened.
      sql`CREATE INDEX ON ${sql.table(t.mi_histories)}
            (tenant_id, medical_institution_id, position_primary DESC, position_secondary DESC)`,
      sql`CREATE TABLE ${sql.table(t.mi_accounts)} (
        tenant_id uuid NOT NULL, account_id uuid NOT NULL, name text NOT NULL, PRIMARY KEY (tenant_id, account_id))`,
      sql`CREATE TABLE ${sql.table(t.phase_masters)} (
        tenant_id uuid NOT NULL, id uuid NOT NULL, name text NOT NULL, description text NOT NULL,
        sort_order int NOT NULL, PRIMARY KEY (tenant_id, id))`,
      sql`CREATE TABLE ${sql.table(t.own_departments)} (
        tenant_id uuid NOT NULL, id uuid NOT NULL, name text NOT NULL, department_id text,
        sort_order int NOT NULL, PRIMARY KEY (tenant_id, id))`,
      sql`CREATE TABLE ${sql.table(t.medical_institution_labels)} (
        tenant_id uuid NOT NULL, id uuid NOT NULL, name text NOT NULL, description text NOT NULL,
        component_type text NOT NULL, sort_order int NOT NULL, selections jsonb NOT NULL, areas jsonb NOT NULL,
        version int NOT NULL, PRIMARY KEY (tenant_id, id))`,
    ];
    for (const statement of ddl) await statement.execute(trx);
  },
  async handle(trx, events, t) {
    const batch = await Batch.load(trx, t, events);
    for (const recorded of events) batch.apply(recorded);
    await batch.write(trx, t);
  },
});

type Change = { field: string; label: string; before: string | null; after: string | null; [k: string]: unknown };
interface HistoryRow {
  tenant_id: string;
  medical_institution_id: string;
  id: string;
  kind: string;
  occurred_at: string;
  account_id: string | null;
  summary: string;
  changes: Change[];
  position_primary: string;
  position_secondary: string;
}
interface DoctorRow {
  tenant_id: string;
  id: string;
  medical_institution_id: string;
  name: string;
  division: string;
  position: string;
  honorific: string;
  email: string | null;
  phone_number: string | null;
  profile: string;
  memo: string;
  updated_at: string;
  version: number;
}
interface LabelRow {
  tenant_id: string;
  id: string;
  name: string;
  description: string;
  component_type: LabelDefinition['componentType'];
  sort_order: number;
  selections: LabelDefinition['selections'];
  areas: LabelDefinition['areas'];
  version: number;
}
type LabelValueRow = LabelValueData & { tenant_id: string; medical_institution_id: string };

const doctorFieldLabels: Record<string, string> = {
  name: '氏名',
  division: '診療科・所属',
  position: '役職',
  honorific: '敬称',
  email: 'メールアドレス',
  phone_number: '電話番号',
  profile: 'プロフィール',
  memo: 'メモ',
};

const key = (...parts: string[]) => parts.join(':');

/**
 * One batch folded in memory, in event order, per row key; `write` then issues a fixed number of
 * set-based statements per table (tenant-wide deletions first, then row deletions, then upserts), so
 * the cost does not grow with the number of statements. State the history needs "as it was" (label
 * definitions, a doctor's previous fields) is loaded once up front and kept current while folding.
 */
class Batch {
  readonly notes = new Map<string, Record<string, unknown>>();
  readonly phases = new Map<string, Record<string, unknown>>();
  /** tenant → phase master ids still allowed (intersection of every replacement in the batch). */
  readonly phaseMasterAllowed = new Map<string, Set<string>>();
  readonly phaseMasters = new Map<string, PhaseMastersReplaced['phase_masters']>();
  readonly ownDepartments = new Map<string, OwnDepartmentsReplaced['own_departments']>();
  /** (tenant, institution, tag) → present after the batch or not. */
  readonly tags = new Map<
    string,
    { tenant_id: string; medical_institution_id: string; tag_id: string; present: boolean }
  >();
  readonly deletedTags = new Map<string, { tenant_id: string; tag_id: string }>();
  /** (tenant, institution, label) → value after the batch, or null when cleared. */
  readonly labelValues = new Map<
    string,
    { tenant_id: string; medical_institution_id: string; label_id: string; value: LabelValueRow | null }
  >();
  readonly deletedLabels = new Map<string, { tenant_id: string; label_id: string }>();
  /** tenant → its labels; only tenants whose labels changed in this batch are written back. */
  readonly labelsChanged = new Set<string>();
  readonly doctors = new Map<string, DoctorRow | { removed: true; tenant_id: string; id: string }>();
  readonly accounts = new Map<string, { tenant_id: string; account_id: string; name: string }>();
  readonly histories: HistoryRow[] = [];

  private constructor(
    private readonly labels: Map<string, Map<string, LabelRow>>,
    private readonly knownDoctors: Map<string, DoctorRow>,
  ) {}

  static async load(trx: Transaction<any>, t: T, events: RecordedEvent[]): Promise<Batch> {
    const labelTenants = new Set<string>();
    const doctorIds = new Set<string>();
    for (const e of events) {
      if (e.type === 'MedicalInstitutionLabelValuesChanged' || e.type.startsWith('MedicalInstitutionLabel'))
        labelTenants.add(e.metadata.tenant_id);
      if (e.type === 'DoctorAdded' || e.type === 'DoctorUpdated') doctorIds.add((e.data as DoctorFields).doctor_id);
    }
    const labels = new Map<string, Map<string, LabelRow>>([...labelTenants].map((id) => [id, new Map()]));
    if (labelTenants.size > 0) {
      const { rows } = await sql<LabelRow>`
        SELECT tenant_id, id, name, description, component_type, sort_order, selections, areas, version
          FROM ${sql.table(t.medical_institution_labels)} WHERE tenant_id = ANY(${sql.val([...labelTenants])}::uuid[])`.execute(
        trx,
      );
      for (const r of rows) labels.get(r.tenant_id)!.set(r.id, r);
    }
    const knownDoctors = new Map<string, DoctorRow>();
    if (doctorIds.size > 0) {
      const { rows } = await sql<DoctorRow>`
        SELECT tenant_id, id, medical_institution_id, name, division, position, honorific, email, phone_number,
               profile, memo, updated_at, version
          FROM ${sql.table(t.mi_doctors)} WHERE id = ANY(${sql.val([...doctorIds])}::uuid[])`.execute(trx);
      for (const r of rows) knownDoctors.set(key(r.tenant_id, r.id), r);
    }
    return new Batch(labels, knownDoctors);
  }

  apply(recorded: RecordedEvent): void {
    const event = { type: recorded.type, data: recorded.data } as Handled;
    const tenantId = recorded.metadata.tenant_id;
    const accountId = recorded.metadata.account_id ?? null;
    const at = recorded.created_at.toISOString();
    const history = (institutionId: string, kind: string, summary: string, changes: Change[]) =>
      this.histories.push({
        tenant_id: tenantId,
        medical_institution_id: institutionId,
        id: recorded.id,
        kind,
        occurred_at: at,
        account_id: accountId,
        summary,
        changes,
        position_primary: recorded.position.primary.toString(),
        position_secondary: recorded.position.secondary.toString(),
      });
    switch (event.type) {
      case 'MedicalInstitutionMemoChanged':
      case 'MedicalInstitutionSpecialNoteChanged': {
        const memo = event.type === 'MedicalInstitutionMemoChanged';
        const d = event.data;
        const kind = memo ? 'memo' : 'special_note';
        this.notes.set(key(tenantId, d.medical_institution_id, kind), {
          tenant_id: tenantId,
          medical_institution_id: d.medical_institution_id,
          kind,
          content: d.content,
          updated_by: accountId,
          updated_at: at,
          version: recorded.revision + 1,
        });
        const label = memo ? 'メモ' : '特記事項';
        history(d.medical_institution_id, memo ? 'memo_changed' : 'special_note_changed', `${label}を更新`, [
          { field: kind, label, before: d.previous_content, after: d.content },
        ]);
        return;
      }
      case 'MedicalInstitutionPhaseChanged': {
        const d = event.data;
        this.phases.set(key(tenantId, d.medical_institution_id), {
          tenant_id: tenantId,
          medical_institution_id: d.medical_institution_id,
          phase_master_id: d.phase_master_id,
          changed_by: accountId,
          changed_at: at,
        });
        history(
          d.medical_institution_id,
          'phase_changed',
          d.phase_name ? `フェーズを「${d.phase_name}」に変更` : 'フェーズを解除',
          [{ field: 'phase', label: 'フェーズ', before: d.previous_phase_name, after: d.phase_name }],
        );
        return;
      }
      case 'MedicalInstitutionTagsChanged': {
        const d = event.data;
        for (const [ids, present] of [
          [d.removed_tag_ids, false],
          [d.added_tag_ids, true],
        ] as const) {
          for (const tagId of ids)
            this.tags.set(key(tenantId, d.medical_institution_id, tagId), {
              tenant_id: tenantId,
              medical_institution_id: d.medical_institution_id,
              tag_id: tagId,
              present,
            });
        }
        // Tag names are resolved when the history is read (tags can be renamed).
        history(d.medical_institution_id, 'tags_changed', 'タグを変更', [
          {
            field: 'tags',
            label: 'タグ',
            before: null,
            after: null,
            added_tag_ids: d.added_tag_ids,
            removed_tag_ids: d.removed_tag_ids,
          },
        ]);
        return;
      }
      case 'TagDeleted': {
        // Deleting a tag removes it from every institution (no event per institution is recorded).
        const tagId = event.data.tag_id;
        this.deletedTags.set(key(tenantId, tagId), { tenant_id: tenantId, tag_id: tagId });
        for (const entry of this.tags.values())
          if (entry.tenant_id === tenantId && entry.tag_id === tagId) entry.present = false;
        return;
      }
      case 'MedicalInstitutionLabelValuesChanged': {
        const d = event.data;
        const touched = [...d.values.map((v) => v.label_id), ...d.removed_label_ids];
        const after = new Map<string, LabelValueData>(d.values.map((v) => [v.label_id, v]));
        for (const labelId of touched) {
          const v = after.get(labelId);
          this.labelValues.set(key(tenantId, d.medical_institution_id, labelId), {
            tenant_id: tenantId,
            medical_institution_id: d.medical_institution_id,
            label_id: labelId,
            value: v ? { ...v, tenant_id: tenantId, medical_institution_id: d.medical_institution_id } : null,
          });
        }
        const labels = this.labels.get(tenantId)!;
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
        history(
          d.medical_institution_id,
          'label_values_changed',
          d.import_id ? 'ラベルの値をインポートで変更' : 'ラベルの値を変更',
          changes,
        );
        return;
      }
      case 'DoctorAdded':
      case 'DoctorUpdated': {
        const d = event.data;
        const k = key(tenantId, d.doctor_id);
        const current = this.doctors.get(k);
        const prev = current ? ('removed' in current ? undefined : current) : this.knownDoctors.get(k);
        const row: DoctorRow = {
          tenant_id: tenantId,
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
          updated_at: at,
          version: recorded.revision,
        };
        this.doctors.set(k, row);
        const changes = Object.entries(doctorFieldLabels)
          .map(([field, label]) => ({
            field,
            label,
            before: prev ? ((prev as unknown as Record<string, string | null>)[field] ?? null) : null,
            after: (d as unknown as Record<string, string | null>)[field] ?? null,
          }))
          .filter((c) => c.before !== c.after && !(prev === undefined && (c.after === null || c.after === '')));
        history(
          d.medical_institution_id,
          event.type === 'DoctorAdded' ? 'doctor_added' : 'doctor_changed',
          event.type === 'DoctorAdded' ? `医師「${d.name}」を登録` : `医師「${d.name}」の情報を変更`,
          changes,
        );
        return;
      }
      case 'DoctorRemoved': {
        const d = event.data;
        this.doctors.set(key(tenantId, d.doctor_id), { removed: true, tenant_id: tenantId, id: d.doctor_id });
        history(d.medical_institution_id, 'doctor_removed', `医師「${d.name}」を削除`, [
          { field: 'name', label: '氏名', before: d.name, after: null },
        ]);
        return;
      }
      case 'PhaseMastersReplaced': {
        const list = event.data.phase_masters;
        const ids = new Set(list.map((p) => p.id));
        this.phaseMasters.set(tenantId, list);
        const allowed = this.phaseMasterAllowed.get(tenantId);
        this.phaseMasterAllowed.set(tenantId, allowed ? new Set([...allowed].filter((id) => ids.has(id))) : ids);
        // A deleted master takes the institutions' phase with it (contract: they lose their phase).
        for (const row of this.phases.values())
          if (row.tenant_id === tenantId && row.phase_master_id !== null && !ids.has(row.phase_master_id as string))
            row.phase_master_id = null;
        return;
      }
      case 'OwnDepartmentsReplaced':
        this.ownDepartments.set(tenantId, event.data.own_departments);
        return;
      case 'MedicalInstitutionLabelCreated':
      case 'MedicalInstitutionLabelUpdated': {
        const d = event.data;
        const labels = this.labels.get(tenantId)!;
        const existing = labels.get(d.label_id);
        const sortOrder = existing
          ? existing.sort_order
          : Math.max(-1, ...[...labels.values()].map((l) => l.sort_order)) + 1;
        labels.set(d.label_id, {
          tenant_id: tenantId,
          id: d.label_id,
          name: d.name,
          description: d.description,
          // An update never changes the component type (v1 kept the stored one too).
          component_type: existing ? existing.component_type : d.component_type,
          sort_order: sortOrder,
          selections: d.selections,
          areas: d.areas,
          version: recorded.revision,
        });
        this.labelsChanged.add(tenantId);
        return;
      }
      case 'MedicalInstitutionLabelDeleted': {
        const labelId = event.data.label_id;
        this.labels.get(tenantId)!.delete(labelId);
        this.labelsChanged.add(tenantId);
        this.deletedLabels.set(key(tenantId, labelId), { tenant_id: tenantId, label_id: labelId });
        for (const entry of this.labelValues.values())
          if (entry.tenant_id === tenantId && entry.label_id === labelId) entry.value = null;
        return;
      }
      case 'MedicalInstitutionLabelsReordered': {
        const labels = this.labels.get(tenantId)!;
        for (const [i, id] of event.data.label_ids.entries()) {
          const l = labels.get(id);
          if (l) l.sort_order = i;
        }
        this.labelsChanged.add(tenantId);
        return;
      }
      case 'AccountRegistered':
      case 'AccountUpdated':
        this.accounts.set(key(tenantId, event.data.account_id), {
          tenant_id: tenantId,
          account_id: event.data.account_id,
          name: event.data.username,
        });
        return;
      default: {
        const never: never = event;
        throw new Error(`medical_institution_crm: unexpected event ${JSON.stringify(never)}`);
      }
    }
  }

  async write(trx: Transaction<any>, t: T): Promise<void> {
    await upsert(
      trx,
      t.mi_notes,
      {
        tenant_id: 'uuid',
        medical_institution_id: 'uuid',
        kind: 'text',
        content: 'text',
        updated_by: 'uuid',
        updated_at: 'timestamptz',
        version: 'int',
      },
      [...this.notes.values()],
      sql`ON CONFLICT (tenant_id, medical_institution_id, kind) DO UPDATE SET content = excluded.content,
        updated_by = excluded.updated_by, updated_at = excluded.updated_at, version = excluded.version`,
    );

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
      await upsert(
        trx,
        t.phase_masters,
        { tenant_id: 'uuid', id: 'uuid', name: 'text', description: 'text', sort_order: 'int' },
        masters.flatMap(([tenant_id, list]) => list.map((p, i) => ({ tenant_id, ...p, sort_order: i }))),
      );
    }
    await upsert(
      trx,
      t.mi_phases,
      {
        tenant_id: 'uuid',
        medical_institution_id: 'uuid',
        phase_master_id: 'uuid',
        changed_by: 'uuid',
        changed_at: 'timestamptz',
      },
      [...this.phases.values()],
      sql`ON CONFLICT (tenant_id, medical_institution_id) DO UPDATE SET phase_master_id = excluded.phase_master_id,
        changed_by = excluded.changed_by, changed_at = excluded.changed_at`,
    );

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
    await upsert(
      trx,
      t.mi_tags,
      { tenant_id: 'uuid', medical_institution_id: 'uuid', tag_id: 'uuid' },
      tagRows.filter((r) => r.present),
      sql`ON CONFLICT DO NOTHING`,
    );

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
    await upsert(
      trx,
      t.mi_label_values,
      {
        tenant_id: 'uuid',
        medical_institution_id: 'uuid',
        label_id: 'uuid',
        text_value: 'text',
        integer_value: 'int',
        date_value: 'date',
        time_value: 'text',
        selection_id: 'uuid',
        selection_ids: 'uuid[]',
        own_department_id: 'uuid',
        area_id: 'uuid',
      },
      valueRows.flatMap((r) => (r.value ? [r.value] : [])),
    );

    if (this.labelsChanged.size > 0) {
      const tenants = [...this.labelsChanged];
      await sql`DELETE FROM ${sql.table(t.medical_institution_labels)} WHERE tenant_id = ANY(${sql.val(tenants)}::uuid[])`.execute(
        trx,
      );
      await upsert(
        trx,
        t.medical_institution_labels,
        {
          tenant_id: 'uuid',
          id: 'uuid',
          name: 'text',
          description: 'text',
          component_type: 'text',
          sort_order: 'int',
          selections: 'jsonb',
          areas: 'jsonb',
          version: 'int',
        },
        tenants.flatMap((tenant) => [...this.labels.get(tenant)!.values()]),
      );
    }

    const doctorRows = [...this.doctors.values()];
    const removedDoctors = doctorRows.filter((r) => 'removed' in r);
    if (removedDoctors.length > 0) {
      await sql`DELETE FROM ${sql.table(t.mi_doctors)} AS m
         USING jsonb_to_recordset(${JSON.stringify(removedDoctors)}::jsonb) AS d(tenant_id uuid, id uuid)
         WHERE m.tenant_id = d.tenant_id AND m.id = d.id`.execute(trx);
    }
    await upsert(
      trx,
      t.mi_doctors,
      {
        tenant_id: 'uuid',
        id: 'uuid',
        medical_institution_id: 'uuid',
        name: 'text',
        division: 'text',
        position: 'text',
        honorific: 'text',
        email: 'text',
        phone_number: 'text',
        profile: 'text',
        memo: 'text',
        updated_at: 'timestamptz',
        version: 'int',
      },
      doctorRows.filter((r): r is DoctorRow => !('removed' in r)),
      sql`ON CONFLICT (tenant_id, id) DO UPDATE SET medical_institution_id = excluded.medical_institution_id,
        name = excluded.name, division = excluded.division, position = excluded.position, honorific = excluded.honorific,
        email = excluded.email, phone_number = excluded.phone_number, profile = excluded.profile, memo = excluded.memo,
        updated_at = excluded.updated_at, version = excluded.version`,
    );

    if (this.ownDepartments.size > 0) {
      const departments = [...this.ownDepartments.entries()];
      await sql`DELETE FROM ${sql.table(t.own_departments)} WHERE tenant_id = ANY(${sql.val(departments.map(([id]) => id))}::uuid[])`.execute(
        trx,
      );
      await upsert(
        trx,
        t.own_departments,
        { tenant_id: 'uuid', id: 'uuid', name: 'text', department_id: 'text', sort_order: 'int' },
        departments.flatMap(([tenant_id, list]) => list.map((d, i) => ({ tenant_id, ...d, sort_order: i }))),
      );
    }

    await upsert(
      trx,
      t.mi_accounts,
      { tenant_id: 'uuid', account_id: 'uuid', name: 'text' },
      [...this.accounts.values()],
      sql`ON CONFLICT (tenant_id, account_id) DO UPDATE SET name = excluded.name`,
    );
    await upsert(
      trx,
      t.mi_histories,
      {
        tenant_id: 'uuid',
        medical_institution_id: 'uuid',
        id: 'uuid',
        kind: 'text',
        occurred_at: 'timestamptz',
        account_id: 'uuid',
        summary: 'text',
        changes: 'jsonb',
        position_primary: 'numeric',
        position_secondary: 'bigint',
      },
      this.histories,
      sql`ON CONFLICT DO NOTHING`,
    );
  }
}

/**
 * One multi-row insert of any size: the rows travel as a single JSON parameter (no bind-parameter
 * limit, one statement per table and batch). `columns` are trusted constants (column → SQL type).
 */
async function upsert(
  trx: Transaction<any>,
  table: string,
  columns: Record<string, string>,
  rows: readonly object[],
  onConflict: RawBuilder<unknown> = sql``,
): Promise<void> {
  if (rows.length === 0) return;
  const names = Object.keys(columns);
  const list = sql.raw(names.join(', '));
  const definitions = sql.raw(names.map((c) => `${c} ${columns[c]}`).join(', '));
  await sql`INSERT INTO ${sql.table(table)} (${list})
    SELECT ${list} FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS r(${definitions}) ${onConflict}`.execute(
    trx,
  );
}
