import {
  formulaItemPrefix,
  ReportDefinitionInput,
  type ReportDefinition,
  type ReportItemDefinition,
  type ReportKind,
} from '@renkei/contracts';
import type { z } from 'zod';

/** The editor's values: the contract's input with every optional part written out. */
export type EditorValues = z.output<typeof ReportDefinitionInput>;
export type EditorDisplayItem = EditorValues['display_items'][number];
export type EditorFilter = EditorValues['filter_conditions'][number];
export type FilterOperator = EditorFilter['operator'];
export type ValueType = ReportItemDefinition['value_type'];

export const periodUnitLabels = {
  week: '週',
  month: '月',
  quarter: '四半期',
  half_year: '半期',
  year: '年',
  fiscal_year: '年度',
} as const;

export const aggregationMethodLabels = { sum: '合計', average: '平均', count: '件数' } as const;

const operatorLabels: Record<FilterOperator, string> = {
  eq: '等しい',
  ne: '等しくない',
  in: 'いずれかに一致',
  not_in: 'いずれにも一致しない',
  gte: '以上',
  lte: '以下',
  between: '範囲',
  contains: '含む',
  is_empty: '空欄',
};

const operatorsByType: Record<ValueType, FilterOperator[]> = {
  string: ['contains', 'eq', 'ne', 'is_empty'],
  selection: ['in', 'not_in', 'is_empty'],
  integer: ['gte', 'lte', 'between', 'eq', 'ne', 'is_empty'],
  number: ['gte', 'lte', 'between', 'eq', 'ne', 'is_empty'],
  rate: ['gte', 'lte', 'between', 'is_empty'],
  date: ['gte', 'lte', 'between', 'eq', 'is_empty'],
};

/** The operators that make sense for an item's value type, labelled (dates read 以降/以前). */
export function operatorsFor(valueType: ValueType): { value: FilterOperator; label: string }[] {
  return operatorsByType[valueType].map((value) => ({
    value,
    label:
      valueType === 'date' && value === 'gte'
        ? '以降'
        : valueType === 'date' && value === 'lte'
          ? '以前'
          : operatorLabels[value],
  }));
}

/** How many values an operator takes: none, one, two (from–to) or any number (a choice list). */
export function valueArity(operator: FilterOperator): 0 | 1 | 2 | 'many' {
  if (operator === 'is_empty') return 0;
  if (operator === 'between') return 2;
  if (operator === 'in' || operator === 'not_in') return 'many';
  return 1;
}

/** A filter on another item starts over: that item's first operator, no values. */
export function filterForItem(item: ReportItemDefinition | undefined, key: string): EditorFilter {
  const operator = item ? operatorsByType[item.value_type][0]! : 'eq';
  return { item_key: key, operator, values: [] };
}

/** A changed operator keeps the values it can still use. */
export function withOperator(filter: EditorFilter, operator: FilterOperator): EditorFilter {
  const arity = valueArity(operator);
  const values = arity === 'many' ? filter.values : filter.values.slice(0, arity);
  return { ...filter, operator, values };
}

// Rates travel as fractions (0.25); people type percentages (25).
export const rateToInput = (value: string | undefined): string =>
  value === undefined || value === '' || !Number.isFinite(Number(value))
    ? (value ?? '')
    : String(Math.round(Number(value) * 1e6) / 1e4);
export const inputToRate = (value: string): string =>
  value.trim() === '' || !Number.isFinite(Number(value)) ? value : String(Math.round(Number(value) * 100) / 1e4);

/** The first unused `formula:<n>` key: a computed column's identity inside its definition. */
export function newFormulaKey(items: readonly { item_key: string }[]): string {
  const used = new Set(items.map((i) => i.item_key));
  for (let n = 1; ; n++) if (!used.has(`${formulaItemPrefix}${n}`)) return `${formulaItemPrefix}${n}`;
}

export const isFormulaItem = (item: { item_key: string }) => item.item_key.startsWith(formulaItemPrefix);

/** Items a formula can take as an operand: numbers, counts and rates. */
export const formulaOperands = (items: readonly ReportItemDefinition[]) =>
  items.filter((i) => i.value_type === 'integer' || i.value_type === 'number' || i.value_type === 'rate');

/** The catalog as the grouped options of a select, by category in catalog order. */
export function groupedItemOptions(items: readonly ReportItemDefinition[], exclude: ReadonlySet<string> = new Set()) {
  const groups = new Map<string, { value: string; label: string }[]>();
  for (const item of items) {
    if (exclude.has(item.key)) continue;
    const list = groups.get(item.category) ?? [];
    list.push({ value: item.key, label: item.label });
    groups.set(item.category, list);
  }
  return [...groups].map(([group, list]) => ({ group, items: list }));
}

const firstColumns: Record<ReportKind, string[]> = {
  medical_institution_reports: ['medical_institution_name'],
  own_department_reports: ['own_department_name'],
  area_reports: ['prefecture', 'city'],
  communication_reports: ['acted_at', 'medical_institution_name', 'user'],
};

const pad = (n: number) => String(n).padStart(2, '0');
const lastDayOfMonth = (year: number, month: number) => new Date(Date.UTC(year, month, 0)).getUTCDate();

/** 'YYYY-MM' months to the period's days: the first of the first month to the last of the last. */
export function periodOfMonths(fromMonth: string, toMonth: string): { from: string; to: string } {
  const [ty, tm] = toMonth.split('-').map(Number) as [number, number];
  return { from: `${fromMonth}-01`, to: `${toMonth}-${pad(lastDayOfMonth(ty, tm))}` };
}

/**
 * The same months a year earlier (前年同期): the comparison a report is usually read against, and what
 * 「比較期間を指定する」 starts with (before, it started equal to the period itself, a comparison of nothing).
 */
export function yearBefore(period: { from: string; to: string }): { from: string; to: string } {
  const back = (day: string) => `${Number(day.slice(0, 4)) - 1}${day.slice(4, 7)}`;
  return periodOfMonths(back(period.from), back(period.to));
}

/** 年度 (April–March) to the period's days. */
export const periodOfFiscalYears = (from: number, to: number) => ({ from: `${from}-04-01`, to: `${to + 1}-03-31` });

/** The 年度 a day falls in. */
export const fiscalYearOf = (day: string) => {
  const year = Number(day.slice(0, 4));
  return Number(day.slice(5, 7)) >= 4 ? year : year - 1;
};

/** A new report: the kind's naming columns, the last twelve full months by month. */
export function emptyDefinition(kind: ReportKind, today: Date): EditorValues {
  const end = new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth() - 1, 1));
  const start = new Date(Date.UTC(end.getUTCFullYear(), end.getUTCMonth() - 11, 1));
  const month = (d: Date) => `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}`;
  return {
    name: '',
    display_items: firstColumns[kind].map((item_key) => ({
      item_key,
      label: null,
      aggregation_method: null,
      formula: null,
    })),
    filter_conditions: [],
    sort_conditions: [],
    aggregation_settings: {
      period: periodOfMonths(month(start), month(end)),
      period_unit: 'month',
      unit_type: 'month',
      comparison_period: null,
      own_department_ids: [],
    },
  };
}

export function valuesOf(def: ReportDefinition): EditorValues {
  return {
    name: def.name,
    display_items: def.display_items,
    filter_conditions: def.filter_conditions,
    sort_conditions: def.sort_conditions,
    aggregation_settings: def.aggregation_settings,
  };
}

/**
 * The local check before a save or preview: the contract's own schema (so the messages are the server's)
 * plus what it leaves to the server, a computed column's name and operands.
 */
export function validateDefinition(values: EditorValues): Record<string, string> {
  const errors: Record<string, string> = {};
  const parsed = ReportDefinitionInput.safeParse(values);
  if (!parsed.success)
    for (const issue of parsed.error.issues) errors[issue.path.map(String).join('.')] ??= issue.message;
  values.display_items.forEach((item, i) => {
    if (!isFormulaItem(item)) return;
    if (!item.label?.trim()) errors[`display_items.${i}.label`] ??= '計算列の名前を入力してください';
    if (!item.formula?.left) errors[`display_items.${i}.formula.left`] ??= '項目を選択してください';
    if (!item.formula?.right) errors[`display_items.${i}.formula.right`] ??= '項目を選択してください';
  });
  values.filter_conditions.forEach((f, i) => {
    const arity = valueArity(f.operator);
    const filled = f.values.filter((v) => v.trim() !== '').length;
    if (arity === 'many' ? filled === 0 : filled < arity)
      errors[`filter_conditions.${i}.values`] ??= '値を入力してください';
  });
  return errors;
}

/** What goes to the API: labels left blank are the item's own, blank values of a filter dropped. */
export function requestOf(values: EditorValues): EditorValues {
  return {
    ...values,
    name: values.name.trim(),
    display_items: values.display_items.map((item) => ({
      ...item,
      label: item.label?.trim() ? item.label.trim() : null,
    })),
  };
}
