import type { Projection } from '@renkei/projections';
import { tagsProjection } from './tags/tags.projection.ts';
import { medicalInstitutionCrmProjection } from './medical-institutions/medical-institution-crm.projection.ts';
import { labelValueImportsProjection } from './imports/label-value-imports.projection.ts';
import { tenantSettingsProjection } from './tenant-settings/tenant-settings.projection.ts';
import { emailsProjection } from './emails/emails.projection.ts';
import { referralsProjection } from './referrals/referrals.projection.ts';
import { communicationsProjection } from './communications/communications.projection.ts';
import { tasksProjection } from './tasks/tasks.projection.ts';
import { vocsProjection } from './vocs/vocs.projection.ts';
import { communicationImportsProjection } from './imports/communication-imports.projection.ts';
import { visitRollupsProjection } from './visit-rollups/visit-rollups.projection.ts';
import { alertsProjection } from './alerts/alerts.projection.ts';
import { actionListsProjection } from './action-lists/action-lists.projection.ts';
import { reportDefinitionsProjection } from './reports/definitions/report-definitions.projection.ts';
import { dashboardsProjection } from './dashboards/dashboards.projection.ts';
import { unmatchedInstitutionDismissalsProjection } from './referrals/unmatched-institution-dismissals.projection.ts';

export {
  tagsProjection,
  medicalInstitutionCrmProjection,
  labelValueImportsProjection,
  tenantSettingsProjection,
  emailsProjection,
  referralsProjection,
  communicationsProjection,
  tasksProjection,
  vocsProjection,
  communicationImportsProjection,
  visitRollupsProjection,
  alertsProjection,
  actionListsProjection,
  reportDefinitionsProjection,
  dashboardsProjection,
  unmatchedInstitutionDismissalsProjection,
};

/**
 * Every read model (tables in `rm`). The worker runs this list; the query service only reads the
 * tables. Lives in a lib because services never import each other.
 */
export const readModelProjections: readonly Projection<any>[] = [
  tagsProjection,
  medicalInstitutionCrmProjection,
  labelValueImportsProjection,
  tenantSettingsProjection,
  emailsProjection,
  referralsProjection,
  communicationsProjection,
  tasksProjection,
  vocsProjection,
  communicationImportsProjection,
  visitRollupsProjection,
  alertsProjection,
  actionListsProjection,
  reportDefinitionsProjection,
  dashboardsProjection,
  unmatchedInstitutionDismissalsProjection,
];

export type { ReadModels } from './read-models.ts';
export type { TableRow } from './shared/table.ts';
export type { HistoryChange } from './medical-institutions/medical-institution-crm.tables.ts';
export { noCity, noFacilityType } from './shared/master-attributes.ts';
export { alertConditionInvalid } from './alerts/alert-validity.ts';
export { rollupPieces } from './shared/rollup-pieces.ts';
export {
  aggregateReport,
  ReportValidationError,
  runReport,
  type ReportAggregationOut,
  type ReportResultOut,
  type ReportRunOptions,
} from './reports/engine/report-engine.ts';
export { reportSources } from './reports/engine/report-source-registry.ts';
export type {
  ReportSource,
  ReportSourceRequest,
  ReportSourceRow,
  ReportValue,
} from './reports/engine/report-source.ts';
