import { parseDashboardEvent, type DashboardEvent, type DashboardFields } from '@renkei/domain';
import type { DashboardInput, FieldError, ReportKind } from '@renkei/contracts';
import { invalid, notFound, type Decider, type Decision } from '../shared/decider.ts';

/** The report kind (path segment) a dashboard content's `report_type` names. */
const reportKindOfType = {
  area_report: 'area_reports',
  communication_report: 'communication_reports',
  medical_institution_report: 'medical_institution_reports',
  own_department_report: 'own_department_reports',
} as const satisfies Record<DashboardInput['contents'][number]['report_type'], ReportKind>;

export interface DashboardState {
  status: 'absent' | 'active' | 'deleted';
  fields: DashboardFields | null;
}

/** What a dashboard's input names, as the tenant has it (read by the route). */
export interface DashboardFacts {
  ownDepartmentIds: ReadonlySet<string>;
  /** Live institution labels of the tenant among the one named. */
  institutionLabelIds: ReadonlySet<string>;
  /** Live report definitions of the tenant among those named, with their kind. */
  reports: ReadonlyMap<string, ReportKind>;
}

export type DashboardCommand =
  | ({ type: 'CreateDashboard'; dashboardId: string; input: DashboardInput; createdByName: string | null } & {
      facts: DashboardFacts;
    })
  | { type: 'UpdateDashboard'; dashboardId: string; input: DashboardInput; facts: DashboardFacts }
  | { type: 'DeleteDashboard'; dashboardId: string };

function evolve(state: DashboardState, event: DashboardEvent): DashboardState {
  switch (event.type) {
    case 'DashboardCreated': {
      const { created_by_name: _, ...fields } = event.data;
      return { status: 'active', fields };
    }
    case 'DashboardUpdated':
      return { status: 'active', fields: event.data };
    case 'DashboardDeleted':
      return { ...state, status: 'deleted' };
    default: {
      const never: never = event;
      return never;
    }
  }
}

/** The department, label and reports a dashboard names must be the tenant's; each report of its type. */
function dashboardErrors(input: DashboardInput, facts: DashboardFacts): FieldError[] {
  const errors: FieldError[] = [];
  if (input.filter_department !== null && !facts.ownDepartmentIds.has(input.filter_department))
    errors.push({ field: 'filter_department', message: '診療科が見つかりません' });
  if (input.medical_institution_label_id !== null && !facts.institutionLabelIds.has(input.medical_institution_label_id))
    errors.push({ field: 'medical_institution_label_id', message: 'ラベルが見つかりません' });
  input.contents.forEach((c, i) => {
    const kind = facts.reports.get(c.report_id);
    if (kind === undefined) errors.push({ field: `contents.${i}.report_id`, message: 'レポートが見つかりません' });
    else if (kind !== reportKindOfType[c.report_type])
      errors.push({ field: `contents.${i}.report_id`, message: 'レポートの種類が一致しません' });
  });
  return errors;
}

const fieldsOf = (dashboardId: string, input: DashboardInput): DashboardFields => ({
  dashboard_id: dashboardId,
  name: input.name,
  filter_department: input.filter_department,
  medical_institution_label_id: input.medical_institution_label_id,
  contents: input.contents,
});

function decide(state: DashboardState, command: DashboardCommand): Decision<DashboardEvent> {
  if (command.type === 'CreateDashboard') {
    if (state.status !== 'absent')
      return invalid({ field: 'id', message: 'このダッシュボードは既に登録されています。' });
    const errors = dashboardErrors(command.input, command.facts);
    if (errors.length > 0) return invalid(...errors);
    return [
      {
        type: 'DashboardCreated',
        data: { ...fieldsOf(command.dashboardId, command.input), created_by_name: command.createdByName },
      },
    ];
  }
  if (state.status !== 'active') return notFound();
  switch (command.type) {
    case 'UpdateDashboard': {
      const errors = dashboardErrors(command.input, command.facts);
      if (errors.length > 0) return invalid(...errors);
      const fields = fieldsOf(command.dashboardId, command.input);
      if (JSON.stringify(fields) === JSON.stringify(state.fields)) return [];
      return [{ type: 'DashboardUpdated', data: fields }];
    }
    case 'DeleteDashboard':
      return [{ type: 'DashboardDeleted', data: { dashboard_id: command.dashboardId } }];
    default: {
      const never: never = command;
      return never;
    }
  }
}

export const dashboardDecider: Decider<DashboardState, DashboardCommand, DashboardEvent> = {
  initialState: () => ({ status: 'absent', fields: null }),
  evolve,
  decide,
  parse: parseDashboardEvent,
};
