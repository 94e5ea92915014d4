import { parseReportDefinitionEvent, type ReportDefinitionEvent, type StoredReportDefinition } from '@renkei/domain';
import {
  formulaItemPrefix,
  isKnownItemKey,
  staticReportItem,
  type FieldError,
  type ReportAlertSettings,
  type ReportDefinitionInput,
  type ReportKind,
} from '@renkei/contracts';
import { invalid, notFound, type Decider, type Decision } from '../shared/decider.ts';

/** Alert settings of a definition that never had any: off, nothing to check, nobody to tell. */
const defaultReportAlertSettings: ReportAlertSettings = { enabled: false, conditions: [], notify_user_ids: [] };

/** The longest period a report may cover (spec: 5 years), so a week report stays within its columns. */
const maxPeriodYears = 5;

export interface ReportDefinitionState {
  status: 'absent' | 'active' | 'deleted';
  kind: ReportKind | null;
  name: string;
  definition: StoredReportDefinition | null;
  alertSettings: ReportAlertSettings;
  /** The last day (JST) the alert fired. */
  alertDate: string | null;
  /** The definition's own version: 0 when created, +1 per user write (never the worker's alerts). */
  version: number;
}

const initialState: ReportDefinitionState = {
  status: 'absent',
  kind: null,
  name: '',
  definition: null,
  alertSettings: defaultReportAlertSettings,
  alertDate: null,
  version: 0,
};

export type ReportDefinitionCommand =
  | {
      type: 'CreateReportDefinition';
      reportDefinitionId: string;
      kind: ReportKind;
      input: ReportDefinitionInput;
      createdByName: string | null;
    }
  | { type: 'UpdateReportDefinition'; reportDefinitionId: string; kind: ReportKind; input: ReportDefinitionInput }
  | { type: 'DeleteReportDefinition'; reportDefinitionId: string; kind: ReportKind }
  | {
      type: 'ChangeReportAlertSettings';
      reportDefinitionId: string;
      kind: ReportKind;
      settings: ReportAlertSettings;
      /** Accounts of the tenant among `settings.notify_user_ids` (read by the route). */
      knownAccountIds: ReadonlySet<string>;
    }
  /** The worker: a row matched the alert conditions on `alertDate` (JST). */
  | { type: 'RaiseReportAlert'; reportDefinitionId: string; alertDate: string };

function evolve(state: ReportDefinitionState, event: ReportDefinitionEvent): ReportDefinitionState {
  switch (event.type) {
    case 'ReportDefinitionCreated':
      return {
        ...initialState,
        status: 'active',
        kind: event.data.kind,
        name: event.data.name,
        definition: event.data.definition,
        version: 0,
      };
    case 'ReportDefinitionUpdated':
      return { ...state, name: event.data.name, definition: event.data.definition, version: event.data.version };
    case 'ReportDefinitionDeleted':
      return { ...state, status: 'deleted' };
    case 'ReportAlertSettingsChanged':
      return { ...state, alertSettings: event.data.alert_settings, version: event.data.version };
    case 'ReportAlertRaised':
      return { ...state, alertDate: event.data.alert_date };
    default: {
      const never: never = event;
      return never;
    }
  }
}

const isoDay = (s: string) => new Date(`${s}T00:00:00Z`);

/** Whether `to` is within five years of `from` (2020-04-01 … 2025-03-31 is; … 2025-04-01 is not). */
function withinMaxYears(from: string, to: string): boolean {
  const limit = isoDay(from);
  limit.setUTCFullYear(limit.getUTCFullYear() + maxPeriodYears);
  return isoDay(to) < limit;
}

function periodErrors(period: { from: string; to: string }, field: string): FieldError[] {
  if (period.from > period.to) return [{ field: `${field}.to`, message: '終了日は開始日以降の日付を指定してください' }];
  if (!withinMaxYears(period.from, period.to))
    return [{ field, message: `期間は${maxPeriodYears}年以内で指定してください` }];
  return [];
}

const numericTypes = new Set(['integer', 'number', 'rate']);
const isNumber = (v: string) => v.trim() !== '' && Number.isFinite(Number(v));
const isDate = (v: string) => /^\d{4}-\d{2}-\d{2}$/.test(v) && !Number.isNaN(isoDay(v).getTime());

/**
 * Conditions (filters or alert conditions) over the kind's items: a known item, and values the
 * operator can use (a number for a number item's comparison, a date for a date item's).
 */
function conditionErrors(
  kind: ReportKind,
  conditions: readonly { item_key: string; operator: string; values: readonly string[] }[],
  field: string,
): FieldError[] {
  const errors: FieldError[] = [];
  conditions.forEach((c, i) => {
    if (!isKnownItemKey(kind, c.item_key)) {
      errors.push({ field: `${field}.${i}.item_key`, message: '項目が見つかりません' });
      return;
    }
    const values = `${field}.${i}.values`;
    const needed = c.operator === 'is_empty' ? 0 : c.operator === 'between' ? 2 : 1;
    if (c.operator === 'between' && c.values.length !== 2) {
      errors.push({ field: values, message: '範囲の下限と上限を指定してください' });
      return;
    }
    if (needed === 1 && c.values.length === 0) {
      errors.push({ field: values, message: '値を入力してください' });
      return;
    }
    if (!['gte', 'lte', 'between'].includes(c.operator)) return;
    const item = staticReportItem(kind, c.item_key);
    if (!item) return;
    if ((item.periodic || numericTypes.has(item.value_type)) && !c.values.every(isNumber))
      errors.push({ field: values, message: '数値を入力してください' });
    else if (item.value_type === 'date' && !c.values.every(isDate))
      errors.push({ field: values, message: '日付をYYYY-MM-DD形式で入力してください' });
  });
  return errors;
}

/** Everything a definition is checked for beyond its zod body; field paths as the body's. */
function definitionErrors(kind: ReportKind, input: ReportDefinitionInput): FieldError[] {
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  input.display_items.forEach((item, i) => {
    const at = `display_items.${i}`;
    if (seen.has(item.item_key)) errors.push({ field: `${at}.item_key`, message: '同じ項目が重複しています' });
    seen.add(item.item_key);
    if (item.item_key.startsWith(formulaItemPrefix)) {
      if (!item.label?.trim()) errors.push({ field: `${at}.label`, message: '計算項目の表示名を入力してください' });
      if (!item.formula) {
        errors.push({ field: `${at}.formula`, message: '計算式を指定してください' });
        return;
      }
      for (const side of ['left', 'right'] as const) {
        const key = item.formula[side];
        const known = staticReportItem(kind, key);
        const numeric = known ? known.periodic || numericTypes.has(known.value_type) : isKnownItemKey(kind, key);
        if (!numeric) errors.push({ field: `${at}.formula.${side}`, message: '計算に使える項目を選択してください' });
      }
      return;
    }
    if (!isKnownItemKey(kind, item.item_key)) {
      errors.push({ field: `${at}.item_key`, message: '項目が見つかりません' });
      return;
    }
    if (item.formula) errors.push({ field: `${at}.formula`, message: '計算式は計算項目にのみ指定できます' });
    const known = staticReportItem(kind, item.item_key);
    if (item.aggregation_method !== null && known && !known.aggregation_methods.includes(item.aggregation_method))
      errors.push({ field: `${at}.aggregation_method`, message: 'この項目では選択できない集計方法です' });
  });
  errors.push(...conditionErrors(kind, input.filter_conditions, 'filter_conditions'));
  input.sort_conditions.forEach((s, i) => {
    if (!isKnownItemKey(kind, s.item_key))
      errors.push({ field: `sort_conditions.${i}.item_key`, message: '項目が見つかりません' });
  });
  const settings = input.aggregation_settings;
  errors.push(...periodErrors(settings.period, 'aggregation_settings.period'));
  if (settings.comparison_period)
    errors.push(...periodErrors(settings.comparison_period, 'aggregation_settings.comparison_period'));
  return errors;
}

const stored = (input: ReportDefinitionInput): StoredReportDefinition => ({
  display_items: input.display_items,
  filter_conditions: input.filter_conditions,
  sort_conditions: input.sort_conditions,
  aggregation_settings: input.aggregation_settings,
});

const sameJson = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

function decide(state: ReportDefinitionState, command: ReportDefinitionCommand): Decision<ReportDefinitionEvent> {
  const report_definition_id = command.reportDefinitionId;
  if (command.type === 'CreateReportDefinition') {
    if (state.status !== 'absent') return invalid({ field: 'id', message: 'このレポートは既に登録されています。' });
    const errors = definitionErrors(command.kind, command.input);
    if (errors.length > 0) return invalid(...errors);
    return [
      {
        type: 'ReportDefinitionCreated',
        data: {
          report_definition_id,
          kind: command.kind,
          name: command.input.name,
          definition: stored(command.input),
          created_by_name: command.createdByName,
        },
      },
    ];
  }
  if (state.status !== 'active') return notFound();
  if (command.type === 'RaiseReportAlert') {
    // Once per day: a second import the same day, or a replayed run, changes nothing.
    if (state.alertDate !== null && state.alertDate >= command.alertDate) return [];
    return [{ type: 'ReportAlertRaised', data: { report_definition_id, alert_date: command.alertDate } }];
  }
  // A definition of another kind under this kind's path is not there.
  if (state.kind !== command.kind) return notFound();
  switch (command.type) {
    case 'UpdateReportDefinition': {
      const errors = definitionErrors(command.kind, command.input);
      if (errors.length > 0) return invalid(...errors);
      const definition = stored(command.input);
      if (state.name === command.input.name && sameJson(state.definition, definition)) return [];
      return [
        {
          type: 'ReportDefinitionUpdated',
          data: { report_definition_id, name: command.input.name, definition, version: state.version + 1 },
        },
      ];
    }
    case 'DeleteReportDefinition':
      return [{ type: 'ReportDefinitionDeleted', data: { report_definition_id } }];
    case 'ChangeReportAlertSettings': {
      if (command.kind !== 'medical_institution_reports') return notFound();
      const errors = conditionErrors(command.kind, command.settings.conditions, 'conditions');
      command.settings.notify_user_ids.forEach((id, i) => {
        if (!command.knownAccountIds.has(id))
          errors.push({ field: `notify_user_ids.${i}`, message: 'ユーザーが見つかりません' });
      });
      if (errors.length > 0) return invalid(...errors);
      const alert_settings: ReportAlertSettings = {
        ...command.settings,
        notify_user_ids: [...new Set(command.settings.notify_user_ids)],
      };
      if (sameJson(state.alertSettings, alert_settings)) return [];
      return [
        {
          type: 'ReportAlertSettingsChanged',
          data: { report_definition_id, alert_settings, version: state.version + 1 },
        },
      ];
    }
    default: {
      const never: never = command;
      return never;
    }
  }
}

export const reportDefinitionDecider: Decider<ReportDefinitionState, ReportDefinitionCommand, ReportDefinitionEvent> = {
  initialState: () => initialState,
  evolve,
  decide,
  parse: parseReportDefinitionEvent,
};
