import { sql, type Transaction } from 'kysely';
import { defineProjection, type ProjectionTables } from '@renkei/projections';
import {
  formatLabelValue,
  type LabelDefinition,
  type LabelValueData,
  type MedicalInstitutionCrmEvent,
  type MedicalInstitutionLabelEvent,
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
type Handled = MedicalInstitutionCrmEvent | MedicalInstitutionLabelEvent | AccountEvent;

/**
 * `medical_institution_crm`: every tenant's CRM data about institutions (memo, special note, phase,
 * tags, label values, doctors), the change history read from those events, and the settings they
 * refer to (labels, phase masters, own departments, account names for "who"). One projection, so
 * the history can name labels and phases as they were when the change happened.
 */
export const medicalInstitutionCrmProjection = defineProjection({
  name: 'medical_institution_crm',
  version: 1,
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
        changes jsonb NOT NULL, PRIMARY KEY (tenant_id, id))`,
      sql`CREATE INDEX ON ${sql.table(t.mi_histories)} (tenant_id, medical_institution_id, occurred_at DESC, id)`,
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
    // Batches are small and each event touches a handful of rows; per-event statements keep the
    // history's "as it was" lookups (label and phase names) in event order.
    for (const recorded of events) await apply(trx, t, recorded);
  },
});

async function apply(trx: Transaction<any>, t: T, recorded: RecordedEvent): Promise<void> {
  const event = { type: recorded.type, data: recorded.data } as Handled;
  const tenantId = recorded.metadata.tenant_id;
  const accountId = recorded.metadata.account_id;
  const at = recorded.created_at.toISOString();
  const history = async (
    institutionId: string,
    kind: string,
    summary: string,
    changes: { field: string; label: string; before: string | null; after: string | null; [k: string]: unknown }[],
  ) => {
    await sql`
      INSERT INTO ${sql.table(t.mi_histories)} (tenant_id, medical_institution_id, id, kind, occurred_at, account_id, summary, changes)
      VALUES (${tenantId}, ${institutionId}, ${recorded.id}, ${kind}, ${at}, ${accountId}, ${summary}, ${JSON.stringify(changes)}::jsonb)
      ON CONFLICT DO NOTHING`.execute(trx);
  };
  switch (event.type) {
    case 'MedicalInstitutionMemoChanged':
    case 'MedicalInstitutionSpecialNoteChanged': {
      const memo = event.type === 'MedicalInstitutionMemoChanged';
      const d = event.data;
      await sql`
        INSERT INTO ${sql.table(t.mi_notes)} (tenant_id, medical_institution_id, kind, content, updated_by, updated_at, version)
        VALUES (${tenantId}, ${d.medical_institution_id}, ${memo ? 'memo' : 'special_note'}, ${d.content}, ${accountId}, ${at}, ${recorded.revision + 1})
        ON CONFLICT (tenant_id, medical_institution_id, kind) DO UPDATE SET
          content = excluded.content, updated_by = excluded.updated_by, updated_at = excluded.updated_at, version = excluded.version`.execute(
        trx,
      );
      const label = memo ? 'メモ' : '特記事項';
      await history(d.medical_institution_id, memo ? 'memo_changed' : 'special_note_changed', `${label}を更新`, [
        { field: memo ? 'memo' : 'special_note', label, before: d.previous_content, after: d.content },
      ]);
      return;
    }
    case 'MedicalInstitutionPhaseChanged': {
      const d = event.data;
      await sql`
        INSERT INTO ${sql.table(t.mi_phases)} (tenant_id, medical_institution_id, phase_master_id, changed_by, changed_at)
        VALUES (${tenantId}, ${d.medical_institution_id}, ${d.phase_master_id}, ${accountId}, ${at})
        ON CONFLICT (tenant_id, medical_institution_id) DO UPDATE SET
          phase_master_id = excluded.phase_master_id, changed_by = excluded.changed_by, changed_at = excluded.changed_at`.execute(
        trx,
      );
      await history(
        d.medical_institution_id,
        'phase_changed',
        d.phase_name ? `フェーズを「${d.phase_name}」に変更` : 'フェーズを解除',
        [{ field: 'phase', label: 'フェーズ', before: d.previous_phase_name, after: d.phase_name }],
      );
      return;
    }
    case 'MedicalInstitutionTagsChanged': {
      const d = event.data;
      if (d.removed_tag_ids.length > 0)
        await sql`DELETE FROM ${sql.table(t.mi_tags)} WHERE tenant_id = ${tenantId}
          AND medical_institution_id = ${d.medical_institution_id} AND tag_id = ANY(${sql.val(d.removed_tag_ids)}::uuid[])`.execute(
          trx,
        );
      if (d.added_tag_ids.length > 0)
        await sql`INSERT INTO ${sql.table(t.mi_tags)} (tenant_id, medical_institution_id, tag_id)
          SELECT ${tenantId}, ${d.medical_institution_id}, unnest(${sql.val(d.added_tag_ids)}::uuid[])
          ON CONFLICT DO NOTHING`.execute(trx);
      // Tag names are resolved when the history is read (tags can be renamed).
      await history(d.medical_institution_id, 'tags_changed', 'タグを変更', [
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
    case 'MedicalInstitutionLabelValuesChanged': {
      const d = event.data;
      const touched = [...d.values.map((v) => v.label_id), ...d.removed_label_ids];
      await sql`DELETE FROM ${sql.table(t.mi_label_values)} WHERE tenant_id = ${tenantId}
        AND medical_institution_id = ${d.medical_institution_id} AND label_id = ANY(${sql.val(touched)}::uuid[])`.execute(
        trx,
      );
      for (const v of d.values) {
        await sql`INSERT INTO ${sql.table(t.mi_label_values)}
          (tenant_id, medical_institution_id, label_id, text_value, integer_value, date_value, time_value, selection_id, selection_ids, own_department_id, area_id)
          VALUES (${tenantId}, ${d.medical_institution_id}, ${v.label_id}, ${v.text_value}, ${v.integer_value}, ${v.date_value},
                  ${v.time_value}, ${v.selection_id}, ${sql.val(v.selection_ids)}::uuid[], ${v.own_department_id}, ${v.area_id})`.execute(
          trx,
        );
      }
      const labels = await labelDefinitions(trx, t, tenantId, touched);
      const before = new Map(d.previous.map((v) => [v.label_id, v]));
      const after = new Map<string, LabelValueData>(d.values.map((v) => [v.label_id, v]));
      const changes = touched.map((id) => ({
        field: `label:${id}`,
        label: labels.get(id)?.name ?? 'ラベル',
        before: before.has(id) ? formatLabelValue(before.get(id)!, labels.get(id)) : null,
        after: after.has(id) ? formatLabelValue(after.get(id)!, labels.get(id)) : null,
      }));
      await history(
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
      const { rows } = await sql<
        Record<string, string | null>
      >`SELECT name, division, position, honorific, email, phone_number, profile, memo
        FROM ${sql.table(t.mi_doctors)} WHERE tenant_id = ${tenantId} AND id = ${d.doctor_id}`.execute(trx);
      const prev = rows[0];
      await sql`
        INSERT INTO ${sql.table(t.mi_doctors)} (tenant_id, id, medical_institution_id, name, division, position, honorific, email, phone_number, profile, memo, updated_at, version)
        VALUES (${tenantId}, ${d.doctor_id}, ${d.medical_institution_id}, ${d.name}, ${d.division}, ${d.position}, ${d.honorific},
                ${d.email}, ${d.phone_number}, ${d.profile}, ${d.memo}, ${at}, ${recorded.revision})
        ON CONFLICT (tenant_id, id) DO UPDATE SET name = excluded.name, division = excluded.division, position = excluded.position,
          honorific = excluded.honorific, email = excluded.email, phone_number = excluded.phone_number, profile = excluded.profile,
          memo = excluded.memo, updated_at = excluded.updated_at, version = excluded.version`.execute(trx);
      const labels: Record<string, string> = {
        name: '氏名',
        division: '診療科・所属',
        position: '役職',
        honorific: '敬称',
        email: 'メールアドレス',
        phone_number: '電話番号',
        profile: 'プロフィール',
        memo: 'メモ',
      };
      const changes = Object.entries(labels)
        .map(([field, label]) => ({
          field,
          label,
          before: prev ? (prev[field] ?? null) : null,
          after: (d as unknown as Record<string, string | null>)[field] ?? null,
        }))
        .filter((c) => c.before !== c.after && !(prev === undefined && (c.after === null || c.after === '')));
      await history(
        d.medical_institution_id,
        event.type === 'DoctorAdded' ? 'doctor_added' : 'doctor_changed',
        event.type === 'DoctorAdded' ? `医師「${d.name}」を登録` : `医師「${d.name}」の情報を変更`,
        changes,
      );
      return;
    }
    case 'DoctorRemoved': {
      const d = event.data;
      await sql`DELETE FROM ${sql.table(t.mi_doctors)} WHERE tenant_id = ${tenantId} AND id = ${d.doctor_id}`.execute(
        trx,
      );
      await history(d.medical_institution_id, 'doctor_removed', `医師「${d.name}」を削除`, [
        { field: 'name', label: '氏名', before: d.name, after: null },
      ]);
      return;
    }
    case 'PhaseMastersReplaced': {
      const list = event.data.phase_masters;
      await sql`DELETE FROM ${sql.table(t.phase_masters)} WHERE tenant_id = ${tenantId}`.execute(trx);
      for (const [i, p] of list.entries())
        await sql`INSERT INTO ${sql.table(t.phase_masters)} (tenant_id, id, name, description, sort_order)
          VALUES (${tenantId}, ${p.id}, ${p.name}, ${p.description}, ${i})`.execute(trx);
      // A deleted master takes the institutions' phase with it (contract: they lose their phase).
      await sql`UPDATE ${sql.table(t.mi_phases)} SET phase_master_id = NULL
        WHERE tenant_id = ${tenantId} AND phase_master_id IS NOT NULL AND NOT (phase_master_id = ANY(${sql.val(list.map((p) => p.id))}::uuid[]))`.execute(
        trx,
      );
      return;
    }
    case 'OwnDepartmentsReplaced': {
      await sql`DELETE FROM ${sql.table(t.own_departments)} WHERE tenant_id = ${tenantId}`.execute(trx);
      for (const [i, d] of event.data.own_departments.entries())
        await sql`INSERT INTO ${sql.table(t.own_departments)} (tenant_id, id, name, department_id, sort_order)
          VALUES (${tenantId}, ${d.id}, ${d.name}, ${d.department_id}, ${i})`.execute(trx);
      return;
    }
    case 'MedicalInstitutionLabelCreated':
    case 'MedicalInstitutionLabelUpdated': {
      const d = event.data;
      await sql`
        INSERT INTO ${sql.table(t.medical_institution_labels)} (tenant_id, id, name, description, component_type, sort_order, selections, areas, version)
        VALUES (${tenantId}, ${d.label_id}, ${d.name}, ${d.description}, ${d.component_type},
                (SELECT coalesce(max(sort_order) + 1, 0) FROM ${sql.table(t.medical_institution_labels)} WHERE tenant_id = ${tenantId}),
                ${JSON.stringify(d.selections)}::jsonb, ${JSON.stringify(d.areas)}::jsonb, ${recorded.revision})
        ON CONFLICT (tenant_id, id) DO UPDATE SET name = excluded.name, description = excluded.description,
          selections = excluded.selections, areas = excluded.areas, version = excluded.version`.execute(trx);
      return;
    }
    case 'MedicalInstitutionLabelDeleted':
      await sql`DELETE FROM ${sql.table(t.medical_institution_labels)} WHERE tenant_id = ${tenantId} AND id = ${event.data.label_id}`.execute(
        trx,
      );
      await sql`DELETE FROM ${sql.table(t.mi_label_values)} WHERE tenant_id = ${tenantId} AND label_id = ${event.data.label_id}`.execute(
        trx,
      );
      return;
    case 'MedicalInstitutionLabelsReordered':
      await sql`UPDATE ${sql.table(t.medical_institution_labels)} AS l SET sort_order = o.ord - 1
        FROM unnest(${sql.val(event.data.label_ids)}::uuid[]) WITH ORDINALITY AS o(id, ord)
        WHERE l.tenant_id = ${tenantId} AND l.id = o.id`.execute(trx);
      return;
    case 'AccountRegistered':
    case 'AccountUpdated':
      await sql`INSERT INTO ${sql.table(t.mi_accounts)} (tenant_id, account_id, name)
        VALUES (${tenantId}, ${event.data.account_id}, ${event.data.username})
        ON CONFLICT (tenant_id, account_id) DO UPDATE SET name = excluded.name`.execute(trx);
      return;
    default: {
      const never: never = event;
      throw new Error(`medical_institution_crm: unexpected event ${JSON.stringify(never)}`);
    }
  }
}

async function labelDefinitions(trx: Transaction<any>, t: T, tenantId: string, ids: string[]) {
  const { rows } = await sql<{
    id: string;
    name: string;
    component_type: string;
    selections: LabelDefinition['selections'];
    areas: LabelDefinition['areas'];
  }>`
    SELECT id, name, component_type, selections, areas FROM ${sql.table(t.medical_institution_labels)}
     WHERE tenant_id = ${tenantId} AND id = ANY(${sql.val(ids)}::uuid[])`.execute(trx);
  return new Map(
    rows.map((r) => [
      r.id,
      {
        id: r.id,
        name: r.name,
        componentType: r.component_type as LabelDefinition['componentType'],
        selections: r.selections,
        areas: r.areas,
      },
    ]),
  );
}
