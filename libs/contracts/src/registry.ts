import type { EndpointContract } from './core/endpoint.ts';
import { tagEndpoints } from './tags/tag.schemas.ts';
import { identityEndpoints } from './identity/identity.schemas.ts';
import { medicalInstitutionEndpoints } from './medical-institutions/medical-institution.schemas.ts';
import { doctorEndpoints } from './doctors/doctor.schemas.ts';
import { labelEndpoints } from './labels/label.schemas.ts';
import { referenceDataEndpoints } from './reference-data/reference-data.schemas.ts';
import { importEndpoints } from './imports/import.schemas.ts';
import { dataUploadEndpoints } from './imports/data-upload.schemas.ts';
import { actionListEndpoints } from './action-lists/action-list.schemas.ts';
import { alertEndpoints } from './alerts/alert.schemas.ts';
import { communicationEndpoints } from './communications/communication.schemas.ts';
import { taskEndpoints } from './tasks/task.schemas.ts';
import { vocEndpoints } from './vocs/voc.schemas.ts';
import { reportEndpoints } from './reports/report.schemas.ts';
import { chartEndpoints } from './charts/chart.schemas.ts';
import { dataAnalysisEndpoints } from './data-analysis/data-analysis.schemas.ts';
import { segmentMapEndpoints } from './data-analysis/segment-map.schemas.ts';
import { referralEndpoints } from './referrals/referral.schemas.ts';
import { dashboardEndpoints } from './dashboards/dashboard.schemas.ts';
import { emailEndpoints } from './emails/email.schemas.ts';

/** Every endpoint of spec §7, grouped by area. */
export const endpoints = {
  ...identityEndpoints,
  ...tagEndpoints,
  ...medicalInstitutionEndpoints,
  ...doctorEndpoints,
  ...labelEndpoints,
  ...referenceDataEndpoints,
  ...importEndpoints,
  ...dataUploadEndpoints,
  ...actionListEndpoints,
  ...alertEndpoints,
  ...communicationEndpoints,
  ...taskEndpoints,
  ...vocEndpoints,
  ...reportEndpoints,
  ...chartEndpoints,
  ...dataAnalysisEndpoints,
  ...segmentMapEndpoints,
  ...referralEndpoints,
  ...dashboardEndpoints,
  ...emailEndpoints,
} satisfies Record<string, EndpointContract>;

export type EndpointId = keyof typeof endpoints;
export const registry: readonly EndpointContract[] = Object.values(endpoints);
