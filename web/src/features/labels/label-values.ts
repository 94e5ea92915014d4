import type { LabelValue, LabelValueInput, MedicalInstitutionLabel, OwnDepartment } from '@renkei/contracts';

export type LabelValueDraft = LabelValueInput;

export function emptyLabelValue(label_id: string): LabelValueDraft {
  return {
    label_id,
    text_value: null,
    integer_value: null,
    date_value: null,
    time_value: null,
    selection_id: null,
    selection_ids: [],
    own_department_id: null,
    area_id: null,
  };
}

export function draftOf(label_id: string, stored: LabelValue | undefined): LabelValueDraft {
  return stored ? { ...stored, label_id, selection_ids: [...stored.selection_ids] } : emptyLabelValue(label_id);
}

/** Only the field of the label's component type is sent; the others are cleared so nothing stale stays. */
export function toLabelValueInput(label: MedicalInstitutionLabel, draft: LabelValueDraft): LabelValueInput {
  const out = emptyLabelValue(label.id);
  switch (label.component_type) {
    case 'text':
    case 'textarea':
      out.text_value = draft.text_value === '' ? null : draft.text_value;
      break;
    case 'integer':
      out.integer_value = draft.integer_value;
      break;
    case 'date':
      out.date_value = draft.date_value || null;
      break;
    case 'time':
      out.time_value = draft.time_value || null;
      break;
    case 'select':
    case 'radio':
      out.selection_id = draft.selection_id;
      break;
    case 'checkbox':
      out.selection_ids = draft.selection_ids;
      break;
    case 'own_department':
      out.own_department_id = draft.own_department_id;
      break;
    case 'area':
      out.area_id = draft.area_id;
      break;
    default: {
      const never: never = label.component_type;
      throw new Error(`unknown component type ${String(never)}`);
    }
  }
  return out;
}

/** The value as one line of text, as the CRM page and the partner chart show it. */
export function displayLabelValue(
  label: MedicalInstitutionLabel,
  value: LabelValue | LabelValueDraft | undefined,
  ownDepartments: readonly OwnDepartment[] = [],
): string {
  if (!value) return '';
  const selection = (id: string | null) => label.selections.find((s) => s.id === id)?.label ?? '';
  switch (label.component_type) {
    case 'text':
    case 'textarea':
      return value.text_value ?? '';
    case 'integer':
      return value.integer_value === null ? '' : value.integer_value.toLocaleString('ja-JP');
    case 'date':
      return value.date_value ? value.date_value.replaceAll('-', '/') : '';
    case 'time':
      return value.time_value ?? '';
    case 'select':
    case 'radio':
      return selection(value.selection_id);
    case 'checkbox':
      return [...label.selections]
        .sort((a, b) => a.order - b.order)
        .filter((s) => value.selection_ids.includes(s.id))
        .map((s) => s.label)
        .join('、');
    case 'own_department':
      return ownDepartments.find((d) => d.id === value.own_department_id)?.name ?? '';
    case 'area':
      return label.areas.find((a) => a.id === value.area_id)?.name ?? '';
    default: {
      const never: never = label.component_type;
      return String(never);
    }
  }
}

export const componentTypeLabel: Record<MedicalInstitutionLabel['component_type'], string> = {
  text: 'テキスト',
  textarea: 'テキストエリア',
  integer: '整数',
  select: 'セレクトボックス',
  radio: 'ラジオボタン',
  checkbox: 'チェックボックス',
  date: '日付',
  time: '時刻',
  own_department: '自院診療科',
  area: 'エリア',
};
