import { periodBuckets } from './report-buckets.ts';
import { formulaItemPrefix, isKnownItemKey, labelIdOfItemKey } from './report-items.ts';
import type {
  ReportDefinitionInput,
  ReportDisplayItem,
  ReportFilterCondition,
  ReportItemDefinition,
  ReportKind,
} from './report.schemas.ts';

/**
 * One check of a report definition, shared by the command side (saving a definition, its alert
 * settings) and the query side (running one): a definition that could be saved can always be run,
 * and one refused on save is refused the same way, with the same field and message, when run unsaved.
 */

export interface ReportFieldError {
  field: string;
  message: string;
}

export const maxReportColumns = 400;
export const maxReportPeriodYears = 5;
/** The grouping key of communication aggregations that groups by the bucket of the acted date. */
export const periodGroupingKey = 'period';

const tooManyColumns = '表示列が多すぎます。期間の単位を大きくするか項目を減らしてください';

export const isFormulaItemKey = (key: string) => key.startsWith(formulaItemPrefix);
export const isNumericValueType = (t: string) => t === 'integer' || t === 'number' || t === 'rate';

function addYears(isoDate: string, years: number): string {
  const [y, m, d] = isoDate.split('-').map(Number) as [number, number, number];
  return new Date(Date.UTC(y + years, m - 1, d)).toISOString().slice(0, 10);
}

/** Whether a filter value parses for an item of this value type. */
function parsesFor(valueType: string, value: string): boolean {
  if (isNumericValueType(valueType)) return value.trim() !== '' && Number.isFinite(Number(value));
  if (valueType === 'date') return /^\d{4}-\d{2}-\d{2}$/.test(value) && !Number.isNaN(Date.parse(`${value}T00:00:00Z`));
  return true;
}

const valueCount: Record<ReportFilterCondition['operator'], [number, number]> = {
  eq: [1, 1],
  ne: [1, 1],
  in: [1, Infinity],
  not_in: [1, Infinity],
  gte: [1, 1],
  lte: [1, 1],
  between: [2, 2],
  contains: [1, 1],
  is_empty: [0, Infinity],
};

export interface ReportValidationOptions {
  /**
   * A saved definition (or one being saved) may name a label the items do not list: the command side
   * does not know the tenant's labels, and a label may have been deleted since. Such a key is judged by
   * its form only, and its values by no type; its column answers null. Unsaved runs must name known items.
   */
  saved?: boolean;
  groupingKeys?: readonly string[];
}

interface ItemLookup {
  kind: ReportKind;
  byKey: ReadonlyMap<string, ReportItemDefinition>;
  saved: boolean;
}

const lookup = (kind: ReportKind, items: readonly ReportItemDefinition[], saved: boolean): ItemLookup => ({
  kind,
  byKey: new Map(items.map((i) => [i.key, i])),
  saved,
});

/** A label key not among the items that a saved definition may still name. */
const isLooseLabel = (l: ItemLookup, key: string) =>
  l.saved && !l.byKey.has(key) && labelIdOfItemKey(key) !== null && isKnownItemKey(l.kind, key);

const isKnown = (l: ItemLookup, key: string) => l.byKey.has(key) || isLooseLabel(l, key);

/**
 * Conditions over a report's rows — its filters, or an institution report's alert conditions: a known
 * item (or one of the definition's formula columns), as many values as the operator takes, a range only
 * over numbers and dates, and values that parse for the item's type.
 */
function conditionErrors(
  l: ItemLookup,
  formulaKeys: ReadonlySet<string>,
  conditions: readonly Pick<ReportFilterCondition, 'item_key' | 'operator' | 'values'>[],
  field: string,
): ReportFieldError[] {
  const errors: ReportFieldError[] = [];
  conditions.forEach((f, i) => {
    const at = `${field}.${i}`;
    if (!isKnown(l, f.item_key) && !formulaKeys.has(f.item_key)) {
      errors.push({ field: `${at}.item_key`, message: 'この項目では絞り込めません' });
      return;
    }
    const [min, max] = valueCount[f.operator];
    if (f.values.length < min || f.values.length > max) {
      errors.push({
        field: `${at}.values`,
        message: f.operator === 'between' ? '範囲の下限と上限を入力してください' : '条件の値を入力してください',
      });
      return;
    }
    // A label the command side cannot see: its type is checked when the report runs with the tenant's items.
    if (isLooseLabel(l, f.item_key)) return;
    const item = l.byKey.get(f.item_key);
    const valueType = formulaKeys.has(f.item_key) || item?.periodic ? 'number' : (item?.value_type ?? 'string');
    const ordered = f.operator === 'gte' || f.operator === 'lte' || f.operator === 'between';
    if (ordered && !isNumericValueType(valueType) && valueType !== 'date')
      errors.push({ field: `${at}.operator`, message: 'この項目では範囲で絞り込めません' });
    else if (f.operator !== 'contains' && f.operator !== 'is_empty' && f.values.some((v) => !parsesFor(valueType, v)))
      errors.push({
        field: `${at}.values`,
        message: valueType === 'date' ? '日付はYYYY-MM-DD形式で入力してください' : '数値を入力してください',
      });
  });
  return errors;
}

const formulaKeysOf = (displayItems: readonly ReportDisplayItem[]) =>
  new Set(displayItems.filter((d) => isFormulaItemKey(d.item_key)).map((d) => d.item_key));

/**
 * How many columns a definition answers: one per plain item and formula; a periodic figure one per
 * bucket (when there is more than one), its aggregate, and with a comparison period two more (the
 * comparison's aggregate and 増減). The engine's planned columns equal this (report-engine.test.ts).
 */
export function reportColumnCount(
  items: readonly ReportItemDefinition[],
  definition: Pick<ReportDefinitionInput, 'display_items' | 'aggregation_settings'>,
): number {
  const settings = definition.aggregation_settings;
  const buckets = periodBuckets(settings.period, settings.period_unit).length;
  const periodic = new Set(items.filter((i) => i.periodic).map((i) => i.key));
  let count = 0;
  for (const d of definition.display_items) {
    if (!periodic.has(d.item_key)) count += 1;
    else count += (buckets > 1 ? buckets : 0) + 1 + (settings.comparison_period ? 2 : 0);
  }
  return count;
}

/**
 * What is wrong with a definition for this kind, given the kind's items (static, plus the tenant's
 * labels where the caller knows them): field paths as the request names them, Japanese messages.
 * Empty when it can be saved and run.
 */
export function validateReport(
  kind: ReportKind,
  items: readonly ReportItemDefinition[],
  definition: ReportDefinitionInput,
  options: ReportValidationOptions = {},
): ReportFieldError[] {
  const errors: ReportFieldError[] = [];
  const l = lookup(kind, items, options.saved === true);
  const formulaKeys = formulaKeysOf(definition.display_items);

  const seen = new Set<string>();
  definition.display_items.forEach((d, i) => {
    const at = `display_items.${i}`;
    // Column keys derive from item keys: the same item twice would answer two columns of one key.
    if (seen.has(d.item_key)) {
      errors.push({ field: `${at}.item_key`, message: 'この項目はすでに選択されています' });
      return;
    }
    seen.add(d.item_key);
    if (isFormulaItemKey(d.item_key)) {
      if (d.formula === null) errors.push({ field: `${at}.formula`, message: '計算式を入力してください' });
      else
        for (const side of ['left', 'right'] as const) {
          const key = d.formula[side];
          // A label the caller cannot see (or deleted since): its column, and so the formula, answers null.
          if (isLooseLabel(l, key)) continue;
          const operand = l.byKey.get(key);
          if (!operand || !(isNumericValueType(operand.value_type) || operand.periodic))
            errors.push({ field: `${at}.formula.${side}`, message: '計算に使える項目を選択してください' });
        }
      if (d.label === null || d.label.trim() === '')
        errors.push({ field: `${at}.label`, message: '計算項目の表示名を入力してください' });
      return;
    }
    if (!isKnown(l, d.item_key)) {
      errors.push({ field: `${at}.item_key`, message: 'この項目は使えません' });
      return;
    }
    if (d.formula !== null) errors.push({ field: `${at}.formula`, message: '計算式は計算項目にのみ指定できます' });
    const item = l.byKey.get(d.item_key);
    if (d.aggregation_method !== null && item && !item.aggregation_methods.includes(d.aggregation_method))
      errors.push({ field: `${at}.aggregation_method`, message: 'この項目では選択できない集計方法です' });
  });

  errors.push(...conditionErrors(l, formulaKeys, definition.filter_conditions, 'filter_conditions'));

  definition.sort_conditions.forEach((s, i) => {
    if (!isKnown(l, s.item_key) && !formulaKeys.has(s.item_key))
      errors.push({ field: `sort_conditions.${i}.item_key`, message: 'この項目では並べ替えられません' });
  });

  const settings = definition.aggregation_settings;
  for (const [name, period] of [
    ['period', settings.period],
    ['comparison_period', settings.comparison_period],
  ] as const) {
    if (!period) continue;
    if (period.from > period.to)
      errors.push({ field: `aggregation_settings.${name}.to`, message: '終了日は開始日以降の日付を指定してください' });
    else if (period.to >= addYears(period.from, maxReportPeriodYears))
      errors.push({
        field: `aggregation_settings.${name}`,
        message: `期間は${maxReportPeriodYears}年以内で指定してください`,
      });
  }

  (options.groupingKeys ?? []).forEach((key, i) => {
    const item = l.byKey.get(key);
    const ok =
      (key === periodGroupingKey && kind === 'communication_reports') ||
      (item !== undefined && !item.periodic) ||
      isLooseLabel(l, key);
    if (!ok) errors.push({ field: `grouping_item_keys.${i}`, message: 'この項目では集計できません' });
  });

  if (errors.length === 0 && reportColumnCount(items, definition) > maxReportColumns)
    errors.push({ field: 'display_items', message: tooManyColumns });
  return errors;
}

/**
 * An institution report's alert conditions: the same checks as its filters, over its items and the
 * formula columns of its saved definition.
 */
export function validateReportAlertConditions(
  kind: ReportKind,
  items: readonly ReportItemDefinition[],
  displayItems: readonly ReportDisplayItem[],
  conditions: readonly Pick<ReportFilterCondition, 'item_key' | 'operator' | 'values'>[],
): ReportFieldError[] {
  return conditionErrors(lookup(kind, items, true), formulaKeysOf(displayItems), conditions, 'conditions');
}
