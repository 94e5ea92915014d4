import { parseReportDefinitionEvent, type ReportDefinitionEvent, type StoredReportDefinition } from '@renkei/domain';
import {
  staticReportItems,
  validateReport,
  validateReportAlertConditions,
  type ReportAlertSettings,
  type ReportDefinitionInput,
  type ReportKind,
} from '@renkei/contracts';
import { invalid, notFound, type Decider, type Decision } from '../shared/decider.ts';

/** Alert settings of a definition that never had any: off, nothing to check, nobody to tell. */
const defaultReportAlertSettings: ReportAlertSettings = { enabled: false, conditions: [], notify_user_ids: [] };

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

/**
 * The one check the query side runs too (`validateReport`), so a definition saved here always runs.
 * The command side does not know the tenant's labels: a `label:<uuid>` key is judged by its form, and
 * the report shows 「（削除されたラベル）」 for one that does not exist.
 */
const definitionErrors = (kind: ReportKind, input: ReportDefinitionInput) =>
  validateReport(kind, staticReportItems[kind], input, { saved: true });

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
      const errors = validateReportAlertConditions(
        command.kind,
        staticReportItems[command.kind],
        state.definition?.display_items ?? [],
        command.settings.conditions,
      );
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
