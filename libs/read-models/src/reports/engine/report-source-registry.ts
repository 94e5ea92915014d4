import type { ReportKind } from '@renkei/contracts';
import { medicalInstitutionReportsSource } from '../sources/medical-institution-reports.source.ts';
import { ownDepartmentReportsSource } from '../sources/own-department-reports.source.ts';
import { areaReportsSource } from '../sources/area-reports.source.ts';
import { communicationReportsSource } from '../sources/communication-reports.source.ts';
import type { ReportSource } from './report-source.ts';

/**
 * The source of each report kind: the query service serves the kinds listed here (the others answer
 * 404), the worker runs institution reports' alerts through it. One line per kind.
 */
export const reportSources: Partial<Record<ReportKind, ReportSource>> = {
  medical_institution_reports: medicalInstitutionReportsSource,
  own_department_reports: ownDepartmentReportsSource,
  area_reports: areaReportsSource,
  communication_reports: communicationReportsSource,
};
