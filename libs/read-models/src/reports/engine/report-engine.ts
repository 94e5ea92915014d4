import type { Kysely } from 'kysely';
import {
  isFormulaItemKey,
  isNumericValueType,
  periodBuckets,
  periodGroupingKey,
  validateReport,
  type ReportBucket,
  type ReportDefinitionInput,
  type ReportDisplayItem,
  type ReportFieldError,
  type ReportFilterCondition,
  type ReportItemDefinition,
  type ReportKind,
} from '@renkei/contracts';
import { normalizeKeyword } from '@renkei/institution-master';
import type { ReadModels } from '../../read-models.ts';
import type { ReportSource, ReportSourceRow, ReportValue } from './report-source.ts';

/** A definition a report cannot run: the route answers 422 with these errors. */
export class ReportValidationError extends Error {
  constructor(readonly errors: ReportFieldError[]) {
    super('invalid report definition');
  }
}

interface ReportColumnOut {
  key: string;
  label: string;
  value_type: string;
}
type ReportRowOut = Record<string, ReportValue>;

export interface ReportResultOut {
  columns: ReportColumnOut[];
  rows: ReportRowOut[];
  meta: { total_count: number; page: number; per_page: number; total_pages: number };
}

export interface ReportAggregationOut {
  columns: ReportColumnOut[];
  rows: ReportRowOut[];
  totals: ReportRowOut;
}

export interface ReportRunOptions {
  /** The source's items, when the caller has them already. */
  items?: ReportItemDefinition[];
  /**
   * A saved definition may name a label the tenant has deleted since: its column shows null under
   * 「（削除されたラベル）」. An unsaved one naming an unknown label is refused.
   */
  saved?: boolean;
}

const deletedLabel = '（削除されたラベル）';

/** Rate items and the count they divide by `referral_count`. */
const rateNumerators: Record<string, string> = {
  hospital_admission_rate: 'hospital_admission_count',
  operation_rate: 'operation_count',
};
const rateDenominator = 'referral_count';

const round = (n: number, digits: number) => {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
};
const ratio = (num: number, den: number): number | null => (den === 0 ? null : round(num / den, 4));
const isFormulaKey = isFormulaItemKey;
const isNumericType = isNumericValueType;
const methodSuffix = { sum: '（合計）', average: '（平均）', count: '（件数）' } as const;
type Method = keyof typeof methodSuffix;

// ---------------------------------------------------------------------------------------------
// Planning: which columns, and how each cell of a row is computed

interface PlannedColumn extends ReportColumnOut {
  cell(row: ReportSourceRow): ReportValue;
}

interface Plan {
  buckets: ReportBucket[];
  comparisonBuckets: ReportBucket[];
  columns: PlannedColumn[];
  /** The value of an item key as filters, sorts and formulas see it (periodic: aggregate over the period). */
  valueOf(row: ReportSourceRow, key: string): ReportValue;
  itemOf(key: string): ReportItemDefinition | undefined;
  /** The method a periodic item is aggregated with (its display item's, else sum). */
  methodOf(key: string): Method;
  displayLabel(d: ReportDisplayItem): string;
}

const bucketCount = (row: ReportSourceRow, key: string, bucket: string, comparison: boolean) =>
  (comparison ? row.comparisonFigures : row.figures)[key]?.[bucket] ?? 0;

/**
 * `wholePeriod`: the period as one bucket (from its first bucket's first day to its last's last day),
 * for a selection that reads only figures whose sum over the buckets is their count over the whole period.
 */
function planReport(
  items: readonly ReportItemDefinition[],
  definition: ReportDefinitionInput,
  wholePeriod = false,
): Plan {
  const settings = definition.aggregation_settings;
  const buckets = periodBuckets(settings.period, settings.period_unit);
  if (wholePeriod && buckets.length > 1)
    buckets.splice(0, buckets.length, { ...buckets[0]!, to: buckets[buckets.length - 1]!.to });
  const comparisonBuckets = settings.comparison_period
    ? periodBuckets(settings.comparison_period, settings.period_unit)
    : [];
  const byKey = new Map(items.map((i) => [i.key, i]));
  const methods = new Map<string, Method>();
  for (const d of definition.display_items)
    if (d.aggregation_method !== null && !methods.has(d.item_key)) methods.set(d.item_key, d.aggregation_method);
  const methodOf = (key: string): Method => methods.get(key) ?? 'sum';

  const periodicValue = (row: ReportSourceRow, key: string, bs: readonly ReportBucket[], comparison: boolean) => {
    const numerator = rateNumerators[key];
    if (numerator !== undefined) {
      let num = 0;
      let den = 0;
      for (const b of bs) {
        num += bucketCount(row, numerator, b.key, comparison);
        den += bucketCount(row, rateDenominator, b.key, comparison);
      }
      return ratio(num, den);
    }
    // Summed in place: this runs per row and item for every sort, filter and aggregation (20,000 rows).
    const cells = (comparison ? row.comparisonFigures : row.figures)[key];
    const method = methodOf(key);
    let total = 0;
    let nonZero = 0;
    if (cells !== undefined)
      for (const b of bs) {
        const c = cells[b.key] ?? 0;
        total += c;
        if (c > 0) nonZero++;
      }
    if (method === 'count') return nonZero;
    if (method === 'average') return bs.length === 0 ? null : round(total / bs.length, 1);
    return total;
  };

  const formulas = new Map(
    definition.display_items
      .filter((d) => isFormulaKey(d.item_key) && d.formula !== null)
      .map((d) => [d.item_key, d.formula!] as const),
  );

  const valueOf = (row: ReportSourceRow, key: string): ReportValue => {
    const formula = formulas.get(key);
    if (formula) return applyFormula(formula.operator, valueOf(row, formula.left), valueOf(row, formula.right));
    const item = byKey.get(key);
    if (item?.periodic) return periodicValue(row, key, buckets, false);
    return row.values[key] ?? null;
  };

  const displayLabel = (d: ReportDisplayItem) => d.label ?? byKey.get(d.item_key)?.label ?? deletedLabel;

  const columns: PlannedColumn[] = [];
  for (const d of definition.display_items) {
    const key = d.item_key;
    const label = displayLabel(d);
    if (isFormulaKey(key)) {
      columns.push({ key, label, value_type: 'number', cell: (row) => valueOf(row, key) });
      continue;
    }
    const item = byKey.get(key);
    if (!item) {
      // A label deleted since the definition was saved.
      columns.push({ key, label: deletedLabel, value_type: 'string', cell: () => null });
      continue;
    }
    if (!item.periodic) {
      columns.push({ key, label, value_type: item.value_type, cell: (row) => row.values[key] ?? null });
      continue;
    }
    const isRate = rateNumerators[key] !== undefined;
    const method = methodOf(key);
    const aggregateType = isRate ? 'rate' : method === 'average' ? 'number' : 'integer';
    if (buckets.length > 1)
      for (const b of buckets)
        columns.push({
          key: `${key}@${b.key}`,
          label: `${label} ${b.label}`,
          value_type: isRate ? 'rate' : 'integer',
          cell: (row) => (isRate ? periodicValue(row, key, [b], false) : bucketCount(row, key, b.key, false)),
        });
    columns.push({
      key,
      label: isRate ? label : `${label}${methodSuffix[method]}`,
      value_type: aggregateType,
      cell: (row) => periodicValue(row, key, buckets, false),
    });
    if (settings.comparison_period) {
      columns.push({
        key: `${key}@comparison`,
        label: `${label}（比較期間）`,
        value_type: aggregateType,
        cell: (row) => periodicValue(row, key, comparisonBuckets, true),
      });
      columns.push({
        key: `${key}@change`,
        label: `${label}（増減）`,
        value_type: aggregateType,
        cell: (row) =>
          applyFormula(
            'minus',
            periodicValue(row, key, buckets, false),
            periodicValue(row, key, comparisonBuckets, true),
          ),
      });
    }
  }
  return {
    buckets,
    comparisonBuckets,
    columns,
    valueOf,
    itemOf: (key) => byKey.get(key),
    methodOf,
    displayLabel,
  };
}

function applyFormula(operator: 'minus' | 'slash', left: ReportValue, right: ReportValue): number | null {
  const l = typeof left === 'number' ? left : null;
  const r = typeof right === 'number' ? right : null;
  if (l === null || r === null) return null;
  if (operator === 'minus') return round(l - r, 4);
  return r === 0 ? null : round(l / r, 4);
}

// ---------------------------------------------------------------------------------------------
// Filters and sort

function filterMatches(plan: Plan, row: ReportSourceRow, f: ReportFilterCondition): boolean {
  const cell = plan.valueOf(row, f.item_key);
  if (f.operator === 'is_empty') return cell === null || cell === '';
  const item = plan.itemOf(f.item_key);
  const valueType = isFormulaKey(f.item_key) ? 'number' : (item?.value_type ?? 'string');
  if (f.operator === 'contains') {
    if (cell === null) return false;
    return normalizeKeyword(String(cell)).includes(normalizeKeyword(f.values[0] ?? ''));
  }
  // A selection's filter value is its code (`open`); the row shows its label (運営中).
  const selectionLabel = new Map((item?.selections ?? []).map((s) => [s.value, s.label]));
  // A selection item may hold several selections joined with 、 (tags, checkbox labels): it equals a
  // value when one of them does.
  const parts = cell === null ? [] : valueType === 'selection' ? String(cell).split('、') : [String(cell)];
  const equals = (v: string) => {
    if (cell === null) return false;
    if (isNumericType(valueType)) return typeof cell === 'number' && cell === Number(v);
    const label = selectionLabel.get(v);
    return parts.some((p) => p === v || p === label);
  };
  const compare = (v: string): number | null => {
    if (cell === null || cell === '') return null;
    if (isNumericType(valueType)) return typeof cell === 'number' ? cell - Number(v) : null;
    const s = String(cell);
    return s < v ? -1 : s > v ? 1 : 0;
  };
  switch (f.operator) {
    case 'eq':
      return equals(f.values[0]!);
    case 'ne':
      return !equals(f.values[0]!);
    case 'in':
      return f.values.some(equals);
    case 'not_in':
      return !f.values.some(equals);
    case 'gte': {
      const c = compare(f.values[0]!);
      return c !== null && c >= 0;
    }
    case 'lte': {
      const c = compare(f.values[0]!);
      return c !== null && c <= 0;
    }
    case 'between': {
      const lo = compare(f.values[0]!);
      const hi = compare(f.values[1]!);
      return lo !== null && hi !== null && lo >= 0 && hi <= 0;
    }
  }
}

/** Nulls (and '') last whatever the direction; numbers numerically, text by code point. */
function compareCells(a: ReportValue, b: ReportValue, direction: 'asc' | 'desc'): number {
  const aEmpty = a === null || a === '';
  const bEmpty = b === null || b === '';
  if (aEmpty || bEmpty) return aEmpty === bEmpty ? 0 : aEmpty ? 1 : -1;
  const c =
    typeof a === 'number' && typeof b === 'number' ? a - b : String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0;
  return direction === 'asc' ? c : -c;
}

function filterAndSort(plan: Plan, definition: ReportDefinitionInput, rows: ReportSourceRow[]): ReportSourceRow[] {
  const kept = rows.filter((row) => definition.filter_conditions.every((f) => filterMatches(plan, row, f)));
  const keyed = kept.map((row) => ({
    row,
    sortValues: definition.sort_conditions.map((s) => plan.valueOf(row, s.item_key)),
  }));
  keyed.sort((x, y) => {
    for (let i = 0; i < definition.sort_conditions.length; i++) {
      const c = compareCells(x.sortValues[i]!, y.sortValues[i]!, definition.sort_conditions[i]!.direction);
      if (c !== 0) return c;
    }
    const xo = x.row.order ?? Number.MAX_SAFE_INTEGER;
    const yo = y.row.order ?? Number.MAX_SAFE_INTEGER;
    if (xo !== yo) return xo - yo;
    return x.row.id < y.row.id ? -1 : x.row.id > y.row.id ? 1 : 0;
  });
  return keyed.map((k) => k.row);
}

// ---------------------------------------------------------------------------------------------
// Running

/** Every item key a source must load for the definition (rates need their counts and referral_count). */
function requestedItemKeys(definition: ReportDefinitionInput): Set<string> {
  const keys = new Set<string>();
  const add = (key: string) => addItemKey(keys, key);
  for (const d of definition.display_items) {
    add(d.item_key);
    if (d.formula) {
      add(d.formula.left);
      add(d.formula.right);
    }
  }
  for (const f of definition.filter_conditions) add(f.item_key);
  for (const s of definition.sort_conditions) add(s.item_key);
  return keys;
}

/** Adds what a source loads for an item key: nothing for a formula, a rate's counts with it. */
function addItemKey(keys: Set<string>, key: string): void {
  if (isFormulaKey(key)) return;
  keys.add(key);
  const numerator = rateNumerators[key];
  if (numerator !== undefined) {
    keys.add(numerator);
    keys.add(rateDenominator);
  }
}

/**
 * The item keys a run reads the values of (the filters', the sorts', `also`, a formula's operands to any
 * depth; a rate's counts), and whether each of them reads the same over the whole period as one bucket:
 * attributes, rates (a ratio of two summed counts) and summed counts that add up across buckets. A count
 * of non-empty buckets, an average over them, or a figure that does not add up needs the buckets.
 */
function readKeys(
  plan: Plan,
  definition: ReportDefinitionInput,
  also: readonly string[],
): { keys: Set<string>; wholePeriod: boolean } {
  const formulas = new Map(
    definition.display_items
      .filter((d) => isFormulaKey(d.item_key) && d.formula !== null)
      .map((d) => [d.item_key, d.formula!] as const),
  );
  const read = new Set<string>();
  const visit = (key: string) => {
    if (read.has(key)) return;
    read.add(key);
    const formula = formulas.get(key);
    if (formula) {
      visit(formula.left);
      visit(formula.right);
    }
  };
  for (const f of definition.filter_conditions) visit(f.item_key);
  for (const s of definition.sort_conditions) visit(s.item_key);
  for (const key of also) visit(key);
  const keys = new Set<string>();
  for (const key of read) addItemKey(keys, key);
  const wholePeriod = [...read].every((key) => {
    if (isFormulaKey(key) || plan.itemOf(key)?.periodic !== true) return true;
    if (rateNumerators[key] !== undefined) return true;
    return additiveFigures.has(key) && plan.methodOf(key) === 'sum';
  });
  return { keys, wholePeriod };
}

/** Figures whose count over a span is the sum of their counts over its parts. */
const additiveFigures = new Set([
  'referral_count',
  'first_visit_count',
  'hospital_admission_count',
  'operation_count',
  'reverse_referral_count',
  'visit_count',
  'communication_count',
]);

async function prepare(
  source: ReportSource,
  db: Kysely<ReadModels>,
  tenantId: string,
  definition: ReportDefinitionInput,
  options: ReportRunOptions,
  groupingKeys: readonly string[] = [],
) {
  const items = options.items ?? (await source.items(db, tenantId));
  const errors = validateReport(source.kind, items, definition, { saved: options.saved, groupingKeys });
  if (errors.length > 0) throw new ReportValidationError(errors);
  return { items, plan: planReport(items, definition) };
}

/**
 * Runs a report: the source's rows, filtered, sorted and paged, shaped into the definition's columns.
 * Throws `ReportValidationError` for a definition that cannot run.
 */
export async function runReport(
  source: ReportSource,
  db: Kysely<ReadModels>,
  tenantId: string,
  definition: ReportDefinitionInput,
  paging: { page: number; perPage: number } & ReportRunOptions,
): Promise<ReportResultOut> {
  const { page, perPage } = paging;
  const { items, plan } = await prepare(source, db, tenantId, definition, paging);
  const settings = definition.aggregation_settings;
  const request = {
    tenantId,
    periodUnit: settings.period_unit,
    ownDepartmentIds: settings.own_department_ids,
  };
  if (!source.loadsByIds) {
    const rows = filterAndSort(
      plan,
      definition,
      await source.load(db, {
        ...request,
        buckets: plan.buckets,
        comparisonBuckets: plan.comparisonBuckets,
        itemKeys: requestedItemKeys(definition),
      }),
    );
    return shapeResult(plan, rows.slice((page - 1) * perPage, page * perPage), rows.length, page, perPage);
  }
  // Two phases: every row with only what the filters and sorts read, over the period as one bucket when
  // that answers them alike (no comparison period: they never read it), which decides the total and the
  // page; then every column for the page's rows alone. At 20,000 institutions × 12 months × 2 periods the
  // cells of the rows nobody sees were nearly all of a report's time. The phases are separate statements
  // (as the source's own statements, which run side by side on the pool): a write between them may give a
  // page row cells a moment newer than the sort that chose it, as the next page may anyway.
  const selection = readKeys(plan, definition, []);
  const selectionPlan =
    selection.wholePeriod && source.answersAnyBucket === true ? planReport(items, definition, true) : plan;
  const selected = filterAndSort(
    selectionPlan,
    definition,
    await source.load(db, {
      ...request,
      buckets: selectionPlan.buckets,
      comparisonBuckets: [],
      itemKeys: selection.keys,
      onlyAskedValues: true,
    }),
  );
  const pageIds = selected.slice((page - 1) * perPage, page * perPage).map((row) => row.id);
  const loaded =
    pageIds.length === 0
      ? []
      : await source.load(db, {
          ...request,
          buckets: plan.buckets,
          comparisonBuckets: plan.comparisonBuckets,
          itemKeys: requestedItemKeys(definition),
          ids: pageIds,
        });
  const byId = new Map(loaded.map((row) => [row.id, row]));
  const pageRows = pageIds.map((id) => byId.get(id)).filter((row) => row !== undefined);
  return shapeResult(plan, pageRows, selected.length, page, perPage);
}

function shapeResult(
  plan: Plan,
  pageRows: readonly ReportSourceRow[],
  totalCount: number,
  page: number,
  perPage: number,
): ReportResultOut {
  return {
    columns: plan.columns.map(({ key, label, value_type }) => ({ key, label, value_type })),
    rows: pageRows.map((row) => {
      const out: ReportRowOut = { id: row.id };
      for (const c of plan.columns) out[c.key] = c.cell(row);
      return out;
    }),
    meta: { total_count: totalCount, page, per_page: perPage, total_pages: Math.ceil(totalCount / perPage) },
  };
}

/**
 * Groups the filtered rows by up to three attribute items (`period` for communications: the bucket
 * of the acted date) and answers per group the row count and the periodic aggregates summed over it.
 */
export async function aggregateReport(
  source: ReportSource,
  db: Kysely<ReadModels>,
  tenantId: string,
  definition: ReportDefinitionInput,
  groupingKeys: readonly string[],
  options: ReportRunOptions = {},
): Promise<ReportAggregationOut> {
  const { items, plan } = await prepare(source, db, tenantId, definition, options, groupingKeys);
  // Only what the groups show is loaded: the grouping items, the periodic and formula items (their
  // figures over the period: never a bucket's or the comparison period's) and what filters and sorts
  // read; over the period as one bucket when that answers them alike (a period grouping needs the buckets).
  const read = readKeys(plan, definition, [
    ...groupingKeys.filter((key) => key !== periodGroupingKey),
    ...definition.display_items
      .filter((d) => plan.itemOf(d.item_key)?.periodic === true || (isFormulaKey(d.item_key) && d.formula !== null))
      .map((d) => d.item_key),
  ]);
  const wholePeriod = read.wholePeriod && source.answersAnyBucket === true && !groupingKeys.includes(periodGroupingKey);
  const aggregationPlan = wholePeriod ? planReport(items, definition, true) : plan;
  const itemKeys = read.keys;
  if (groupingKeys.includes(periodGroupingKey)) itemKeys.add('acted_at');
  if (source.kind === 'communication_reports') itemKeys.add('medical_institution_id');
  const rows = await source.load(db, {
    tenantId,
    buckets: aggregationPlan.buckets,
    comparisonBuckets: [],
    periodUnit: definition.aggregation_settings.period_unit,
    ownDepartmentIds: definition.aggregation_settings.own_department_ids,
    itemKeys,
  });
  return shapeAggregation(
    aggregationPlan,
    definition,
    source.kind,
    filterAndSort(aggregationPlan, definition, rows),
    groupingKeys,
  );
}

function shapeAggregation(
  plan: Plan,
  definition: ReportDefinitionInput,
  kind: ReportKind,
  rows: ReportSourceRow[],
  groupingKeys: readonly string[],
): ReportAggregationOut {
  const periodLabel = (row: ReportSourceRow): ReportValue => {
    const acted = row.values['acted_at'];
    if (typeof acted !== 'string') return null;
    const date = acted.slice(0, 10);
    return plan.buckets.find((b) => b.from <= date && date <= b.to)?.label ?? null;
  };
  const groupValue = (row: ReportSourceRow, key: string) =>
    key === periodGroupingKey ? periodLabel(row) : (row.values[key] ?? null);

  const columns: ReportColumnOut[] = groupingKeys.map((key) => ({
    key,
    label: key === periodGroupingKey ? '期間' : (plan.itemOf(key)?.label ?? deletedLabel),
    value_type: key === periodGroupingKey ? 'string' : (plan.itemOf(key)?.value_type ?? 'string'),
  }));
  columns.push({ key: 'row_count', label: '件数', value_type: 'integer' });
  const countsInstitutions = kind === 'communication_reports';
  if (countsInstitutions)
    columns.push({ key: 'medical_institution_count', label: '医療機関数', value_type: 'integer' });

  // Figures summed over a group: each periodic display item's aggregate; rates from their summed counts.
  const periodic = definition.display_items.filter((d) => plan.itemOf(d.item_key)?.periodic === true);
  const formulaItems = definition.display_items.filter((d) => isFormulaKey(d.item_key) && d.formula !== null);
  for (const d of periodic) {
    const isRate = rateNumerators[d.item_key] !== undefined;
    const method = plan.methodOf(d.item_key);
    columns.push({
      key: d.item_key,
      label: isRate ? plan.displayLabel(d) : `${plan.displayLabel(d)}${methodSuffix[method]}`,
      value_type: isRate ? 'rate' : method === 'average' ? 'number' : 'integer',
    });
  }
  for (const d of formulaItems) columns.push({ key: d.item_key, label: plan.displayLabel(d), value_type: 'number' });

  const sumOf = (group: ReportSourceRow[], key: string): number | null => {
    const numerator = rateNumerators[key];
    if (numerator !== undefined) {
      // A rate over a group is its summed count over its summed referral count, never a sum of rates.
      const sumCount = (k: string) => group.reduce((a, row) => a + totalOver(row, k, plan.buckets), 0);
      return ratio(sumCount(numerator), sumCount(rateDenominator));
    }
    if (plan.itemOf(key)?.periodic && plan.methodOf(key) === 'average') {
      // The group's total over the buckets, averaged once: a sum of the rows' rounded averages drifts.
      if (plan.buckets.length === 0) return null;
      const total = group.reduce((a, row) => a + totalOver(row, key, plan.buckets), 0);
      return round(total / plan.buckets.length, 1);
    }
    let total = 0;
    let any = false;
    for (const row of group) {
      const v = plan.valueOf(row, key);
      if (typeof v === 'number') {
        total += v;
        any = true;
      }
    }
    if (!any) return plan.itemOf(key)?.periodic ? 0 : null;
    return round(total, 4);
  };

  const summarise = (group: ReportSourceRow[], values: ReportValue[]): ReportRowOut => {
    const out: ReportRowOut = {};
    groupingKeys.forEach((key, i) => (out[key] = values[i] ?? null));
    out['row_count'] = group.length;
    if (countsInstitutions)
      out['medical_institution_count'] = new Set(
        group.map((r) => r.values['medical_institution_id']).filter((v) => v !== null && v !== undefined && v !== ''),
      ).size;
    for (const d of periodic) {
      const v = sumOf(group, d.item_key);
      out[d.item_key] =
        v !== null && plan.methodOf(d.item_key) === 'average' && !rateNumerators[d.item_key] ? round(v, 1) : v;
    }
    for (const d of formulaItems)
      out[d.item_key] = applyFormula(
        d.formula!.operator,
        sumOf(group, d.formula!.left),
        sumOf(group, d.formula!.right),
      );
    return out;
  };

  const groups = new Map<string, { values: ReportValue[]; rows: ReportSourceRow[] }>();
  for (const row of rows) {
    const values = groupingKeys.map((key) => groupValue(row, key));
    const id = JSON.stringify(values);
    const group = groups.get(id) ?? { values, rows: [] };
    group.rows.push(row);
    groups.set(id, group);
  }
  const ordered = [...groups.values()].sort((a, b) => {
    if (a.rows.length !== b.rows.length) return b.rows.length - a.rows.length;
    for (let i = 0; i < groupingKeys.length; i++) {
      const c = compareCells(a.values[i]!, b.values[i]!, 'asc');
      if (c !== 0) return c;
    }
    return 0;
  });
  const totals = summarise(
    rows,
    groupingKeys.map(() => null),
  );
  return { columns, rows: ordered.map((g) => summarise(g.rows, g.values)), totals };
}

const totalOver = (row: ReportSourceRow, key: string, bs: readonly ReportBucket[]) =>
  bs.reduce((a, b) => a + bucketCount(row, key, b.key, false), 0);
