import type { Dashboard, ReportDefinition, ReportKind } from '@renkei/contracts';
import { labelItemPrefix } from '@renkei/contracts';
import { reportKinds } from '../reports/report-kinds.ts';

export type DashboardReportType = Dashboard['contents'][number]['report_type'];

/** The report kind (API path segment) of a dashboard content's type. */
export const reportKindOfType: Record<DashboardReportType, ReportKind> = {
  area_report: 'area_reports',
  communication_report: 'communication_reports',
  medical_institution_report: 'medical_institution_reports',
  own_department_report: 'own_department_reports',
};

export const reportTypeOptions = (Object.keys(reportKindOfType) as DashboardReportType[]).map((type) => ({
  value: type,
  label: reportKinds[reportKindOfType[type]].title,
}));

/** Rows of a dashboard card's page (the card pages through the rest). */
export const dashboardRowsPerReport = 20;

/**
 * The `POST /{kind}/results` body of one report on a dashboard. The dashboard's department narrows the
 * figures of every report whose kind is per own department (it replaces the report's own departments);
 * its institution label adds the label's value as the last column of institution reports. Without
 * either the saved definition runs as it is, by id (a label deleted since shows as deleted there).
 */
export function dashboardResultBody(
  dashboard: Pick<Dashboard, 'filter_department' | 'medical_institution_label_id'>,
  kind: ReportKind,
  definition: ReportDefinition,
  page: number,
  perPage: number,
) {
  const department = reportKinds[kind].ownDepartments ? dashboard.filter_department : null;
  const labelKey =
    kind === 'medical_institution_reports' && dashboard.medical_institution_label_id
      ? `${labelItemPrefix}${dashboard.medical_institution_label_id}`
      : null;
  const addsLabel = labelKey !== null && !definition.display_items.some((d) => d.item_key === labelKey);
  if (department === null && !addsLabel) return { definition_id: definition.id, page, per_page: perPage };
  return {
    definition: {
      name: definition.name,
      display_items: addsLabel
        ? [...definition.display_items, { item_key: labelKey, label: null, aggregation_method: null, formula: null }]
        : definition.display_items,
      filter_conditions: definition.filter_conditions,
      sort_conditions: definition.sort_conditions,
      aggregation_settings: {
        ...definition.aggregation_settings,
        own_department_ids: department === null ? definition.aggregation_settings.own_department_ids : [department],
      },
    },
    page,
    per_page: perPage,
  };
}
