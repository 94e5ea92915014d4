import type { LabelAreaData, LabelComponentTypeData, LabelSelectionData, LabelValueData } from './label.events.ts';

/**
 * A real calendar date in years 0001–9999: what a Postgres `date` column stores and reads back the
 * same. Year 0000 does not exist there, so an event carrying it could never be projected.
 */
export function isStorableDate(value: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!m) return false;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (year < 1) return false;
  const d = new Date(Date.UTC(2000, month - 1, day));
  d.setUTCFullYear(year);
  return d.getUTCFullYear() === year && d.getUTCMonth() === month - 1 && d.getUTCDate() === day;
}

/** What checking a value needs to know about its label. */
export interface LabelDefinition {
  id: string;
  name: string;
  componentType: LabelComponentTypeData;
  selections: readonly LabelSelectionData[];
  areas: readonly LabelAreaData[];
}

export interface LabelValueProblem {
  /** Index of the value in the input. */
  index: number;
  field: string;
  message: string;
}

const empty = (v: LabelValueData) =>
  (v.text_value === null || v.text_value === '') &&
  v.integer_value === null &&
  v.date_value === null &&
  v.time_value === null &&
  v.selection_id === null &&
  v.selection_ids.length === 0 &&
  v.own_department_id === null &&
  v.area_id === null;

/** A value of `labelId` with every field empty (what clearing a label sends). */
export const blankLabelValue = (labelId: string): LabelValueData => ({
  label_id: labelId,
  text_value: null,
  integer_value: null,
  date_value: null,
  time_value: null,
  selection_id: null,
  selection_ids: [],
  own_department_id: null,
  area_id: null,
});

/**
 * Checks values against their labels' component types and keeps only the field each type uses. A value
 * with every field empty clears the label. Pure: labels and the tenant's own departments are passed in.
 */
export function checkLabelValues(
  inputs: readonly LabelValueData[],
  labels: ReadonlyMap<string, LabelDefinition>,
  ownDepartmentIds: ReadonlySet<string>,
): { values: LabelValueData[]; removedLabelIds: string[]; problems: LabelValueProblem[] } {
  const values: LabelValueData[] = [];
  const removedLabelIds: string[] = [];
  const problems: LabelValueProblem[] = [];
  const seen = new Set<string>();
  inputs.forEach((input, index) => {
    const problem = (field: string, message: string) => problems.push({ index, field, message });
    const label = labels.get(input.label_id);
    if (!label) return problem('label_id', 'ラベルが見つかりません');
    if (seen.has(label.id)) return problem('label_id', `ラベル「${label.name}」が重複しています`);
    seen.add(label.id);
    if (empty(input)) {
      removedLabelIds.push(label.id);
      return;
    }
    const out = blankLabelValue(label.id);
    switch (label.componentType) {
      case 'text':
      case 'textarea':
        if (!input.text_value) return problem('text_value', `「${label.name}」にはテキストを入力してください`);
        if (label.componentType === 'text' && input.text_value.length > 200)
          return problem('text_value', `「${label.name}」は200文字以内で入力してください`);
        out.text_value = input.text_value;
        break;
      case 'integer':
        if (input.integer_value === null)
          return problem('integer_value', `「${label.name}」には整数を入力してください`);
        out.integer_value = input.integer_value;
        break;
      case 'date':
        if (input.date_value === null) return problem('date_value', `「${label.name}」には日付を入力してください`);
        if (!isStorableDate(input.date_value))
          return problem('date_value', `「${label.name}」は0001-01-01から9999-12-31までの日付で入力してください`);
        out.date_value = input.date_value;
        break;
      case 'time':
        if (input.time_value === null) return problem('time_value', `「${label.name}」には時刻を入力してください`);
        out.time_value = input.time_value;
        break;
      case 'select':
      case 'radio':
        if (input.selection_id === null || !label.selections.some((s) => s.id === input.selection_id))
          return problem('selection_id', `「${label.name}」の選択肢を選んでください`);
        out.selection_id = input.selection_id;
        break;
      case 'checkbox': {
        const unknown = input.selection_ids.find((id) => !label.selections.some((s) => s.id === id));
        if (unknown || input.selection_ids.length === 0)
          return problem('selection_ids', `「${label.name}」の選択肢を選んでください`);
        out.selection_ids = [...new Set(input.selection_ids)];
        break;
      }
      case 'own_department':
        if (input.own_department_id === null || !ownDepartmentIds.has(input.own_department_id))
          return problem('own_department_id', `「${label.name}」の自院診療科を選んでください`);
        out.own_department_id = input.own_department_id;
        break;
      case 'area':
        if (input.area_id === null || !label.areas.some((a) => a.id === input.area_id))
          return problem('area_id', `「${label.name}」のエリアを選んでください`);
        out.area_id = input.area_id;
        break;
      default: {
        const never: never = label.componentType;
        return never;
      }
    }
    values.push(out);
  });
  return { values, removedLabelIds, problems };
}

/** The label value as one line of text (history, CSV). */
export function formatLabelValue(value: LabelValueData, label: LabelDefinition | undefined): string {
  if (value.text_value !== null) return value.text_value;
  if (value.integer_value !== null) return String(value.integer_value);
  if (value.date_value !== null) return value.date_value;
  if (value.time_value !== null) return value.time_value;
  const sel = (id: string) => label?.selections.find((s) => s.id === id)?.label ?? id;
  if (value.selection_id !== null) return sel(value.selection_id);
  if (value.selection_ids.length > 0) return value.selection_ids.map(sel).join('、');
  if (value.area_id !== null) return label?.areas.find((a) => a.id === value.area_id)?.name ?? value.area_id;
  if (value.own_department_id !== null) return value.own_department_id;
  return '';
}
