import type { LabelAreaData, LabelComponentTypeData, LabelSelectionData } from '@renkei/domain';
import { column, defineTable, type KyselyTables } from '../shared/table.ts';

/** The memo and the special note of an institution (`kind`), each with its stream revision as version. */
export const miNotesTable = defineTable({
  name: 'mi_notes',
  columns: {
    tenant_id: column.uuid(),
    medical_institution_id: column.uuid(),
    kind: column.text<'memo' | 'special_note'>(),
    content: column.text(),
    updated_by: column.uuid().nullable(),
    updated_at: column.timestamptz(),
    version: column.int(),
  },
  primaryKey: ['tenant_id', 'medical_institution_id', 'kind'],
});

export const miPhasesTable = defineTable({
  name: 'mi_phases',
  columns: {
    tenant_id: column.uuid(),
    medical_institution_id: column.uuid(),
    phase_master_id: column.uuid().nullable(),
    changed_by: column.uuid().nullable(),
    changed_at: column.timestamptz(),
  },
  primaryKey: ['tenant_id', 'medical_institution_id'],
  indexes: [['tenant_id', 'phase_master_id']],
});

export const miTagsTable = defineTable({
  name: 'mi_tags',
  columns: { tenant_id: column.uuid(), medical_institution_id: column.uuid(), tag_id: column.uuid() },
  primaryKey: ['tenant_id', 'medical_institution_id', 'tag_id'],
  indexes: [['tenant_id', 'tag_id', 'medical_institution_id']],
});

/** One value per (institution, label); which value column is set follows the label's component type. */
const miLabelValuesTable = defineTable({
  name: 'mi_label_values',
  columns: {
    tenant_id: column.uuid(),
    medical_institution_id: column.uuid(),
    label_id: column.uuid(),
    text_value: column.text().nullable(),
    integer_value: column.int().nullable(),
    date_value: column.date().nullable(),
    time_value: column.text().nullable(),
    selection_id: column.uuid().nullable(),
    selection_ids: column.uuidArray().default(`'{}'`),
    own_department_id: column.uuid().nullable(),
    area_id: column.uuid().nullable(),
  },
  primaryKey: ['tenant_id', 'medical_institution_id', 'label_id'],
  indexes: [['tenant_id', 'label_id', 'medical_institution_id']],
});

export const miDoctorsTable = defineTable({
  name: 'mi_doctors',
  columns: {
    tenant_id: column.uuid(),
    id: column.uuid(),
    medical_institution_id: column.uuid(),
    name: column.text(),
    division: column.text(),
    position: column.text(),
    honorific: column.text(),
    email: column.text().nullable(),
    phone_number: column.text().nullable(),
    profile: column.text(),
    memo: column.text(),
    updated_at: column.timestamptz(),
    version: column.int(),
  },
  primaryKey: ['tenant_id', 'id'],
  indexes: [['tenant_id', 'medical_institution_id']],
});

export type HistoryKind =
  | 'memo_changed'
  | 'special_note_changed'
  | 'phase_changed'
  | 'tags_changed'
  | 'doctor_added'
  | 'doctor_changed'
  | 'doctor_removed'
  | 'label_values_changed';

/** One changed field; tag changes keep ids, named when read (tags can be renamed). */
export interface HistoryChange {
  field: string;
  label: string;
  before: string | null;
  after: string | null;
  added_tag_ids?: string[];
  removed_tag_ids?: string[];
}

export const miHistoriesTable = defineTable({
  name: 'mi_histories',
  columns: {
    tenant_id: column.uuid(),
    medical_institution_id: column.uuid(),
    id: column.uuid(),
    kind: column.text<HistoryKind>(),
    occurred_at: column.timestamptz(),
    account_id: column.uuid().nullable(),
    summary: column.text(),
    changes: column.jsonb<HistoryChange[]>(),
    position_primary: column.numeric(),
    position_secondary: column.bigint(),
  },
  // Keyed in the order it is read (an institution's lines newest first, scanned backwards: two changes
  // in the same millisecond, or one transaction whose created_at is its start, still come back in the
  // order they happened), so a line costs one index entry; an import writes thousands a chunk. The id
  // stays unique: it is the event's, or derived from it and the institution.
  primaryKey: ['tenant_id', 'medical_institution_id', 'position_primary', 'position_secondary', 'id'],
});

/** Account names for "who", from the identity service's events. */
export const miAccountsTable = defineTable({
  name: 'mi_accounts',
  columns: { tenant_id: column.uuid(), account_id: column.uuid(), name: column.text() },
  primaryKey: ['tenant_id', 'account_id'],
});

export const phaseMastersTable = defineTable({
  name: 'phase_masters',
  columns: {
    tenant_id: column.uuid(),
    id: column.uuid(),
    name: column.text(),
    description: column.text(),
    sort_order: column.int(),
  },
  primaryKey: ['tenant_id', 'id'],
});

export const ownDepartmentsTable = defineTable({
  name: 'own_departments',
  columns: {
    tenant_id: column.uuid(),
    id: column.uuid(),
    name: column.text(),
    department_id: column.text().nullable(),
    sort_order: column.int(),
  },
  primaryKey: ['tenant_id', 'id'],
});

export const medicalInstitutionLabelsTable = defineTable({
  name: 'medical_institution_labels',
  columns: {
    tenant_id: column.uuid(),
    id: column.uuid(),
    name: column.text(),
    description: column.text(),
    component_type: column.text<LabelComponentTypeData>(),
    sort_order: column.int(),
    selections: column.jsonb<LabelSelectionData[]>(),
    areas: column.jsonb<LabelAreaData[]>(),
    version: column.int(),
  },
  primaryKey: ['tenant_id', 'id'],
});

/** In the order the projection creates them. */
export const medicalInstitutionCrmTables = [
  miNotesTable,
  miPhasesTable,
  miTagsTable,
  miLabelValuesTable,
  miDoctorsTable,
  miHistoriesTable,
  miAccountsTable,
  phaseMastersTable,
  ownDepartmentsTable,
  medicalInstitutionLabelsTable,
] as const;

export type MedicalInstitutionCrmTables = KyselyTables<(typeof medicalInstitutionCrmTables)[number]>;
