import type { FeatureKey, ReportKind } from '@renkei/contracts';
import type { ApiClient } from '../../api/api-client.ts';

/** The screens' URL segment of each kind (spec route names), which differs from the API's for institutions. */
type ReportRoute =
  '/medical_institutions_reports' | '/own_department_reports' | '/area_reports' | '/communication_reports';

export interface ReportKindInfo {
  kind: ReportKind;
  route: ReportRoute;
  title: string;
  feature: FeatureKey;
  /** What one row is, for the empty states and counts. */
  rowNoun: string;
  /** Institution rows link to the CRM page. */
  linksInstitutions: boolean;
  /** Whether `aggregation_results` exists for the kind (集計 tab). */
  aggregates: boolean;
  /** Institution reports alone carry alert settings and an alert date. */
  alerts: boolean;
  /** Referral figures are per own department, so the definition can narrow them. */
  ownDepartments: boolean;
}

export const reportKinds: Record<ReportKind, ReportKindInfo> = {
  medical_institution_reports: {
    kind: 'medical_institution_reports',
    route: '/medical_institutions_reports',
    title: '医療機関レポート',
    feature: 'medical_institution_report',
    rowNoun: '医療機関',
    linksInstitutions: true,
    aggregates: true,
    alerts: true,
    ownDepartments: true,
  },
  own_department_reports: {
    kind: 'own_department_reports',
    route: '/own_department_reports',
    title: '自院診療科レポート',
    feature: 'own_department_report',
    rowNoun: '診療科',
    linksInstitutions: false,
    aggregates: false,
    alerts: false,
    ownDepartments: true,
  },
  area_reports: {
    kind: 'area_reports',
    route: '/area_reports',
    title: 'エリアレポート',
    feature: 'area_report',
    rowNoun: 'エリア',
    linksInstitutions: false,
    aggregates: false,
    alerts: false,
    ownDepartments: true,
  },
  communication_reports: {
    kind: 'communication_reports',
    route: '/communication_reports',
    title: 'コミュニケーションレポート',
    feature: 'communication_report',
    rowNoun: '活動',
    linksInstitutions: false,
    aggregates: true,
    alerts: false,
    ownDepartments: false,
  },
};

const prefixOf = {
  area_reports: 'areaReports',
  communication_reports: 'communicationReports',
  medical_institution_reports: 'medicalInstitutionReports',
  own_department_reports: 'ownDepartmentReports',
} as const satisfies Record<ReportKind, string>;

// The four kinds share every schema, so one kind's call types stand for all of them.
type Calls = {
  listDefinitions: ApiClient['medicalInstitutionReportsListDefinitions'];
  createDefinition: ApiClient['medicalInstitutionReportsCreateDefinition'];
  getDefinition: ApiClient['medicalInstitutionReportsGetDefinition'];
  updateDefinition: ApiClient['medicalInstitutionReportsUpdateDefinition'];
  deleteDefinition: ApiClient['medicalInstitutionReportsDeleteDefinition'];
  itemDefinitions: ApiClient['medicalInstitutionReportsItemDefinitions'];
  results: ApiClient['medicalInstitutionReportsResults'];
  aggregationResults: ApiClient['medicalInstitutionReportsAggregationResults'];
};

/** The API calls of one kind: the client has one function per registry entry, named after its kind. */
export function reportApi(api: ApiClient, kind: ReportKind): Calls {
  const p = prefixOf[kind];
  const call = (name: string) => (args: unknown) =>
    (api as unknown as Record<string, (a: unknown) => Promise<unknown>>)[`${p}${name}`]!(args);
  return {
    listDefinitions: call('ListDefinitions'),
    createDefinition: call('CreateDefinition'),
    getDefinition: call('GetDefinition'),
    updateDefinition: call('UpdateDefinition'),
    deleteDefinition: call('DeleteDefinition'),
    itemDefinitions: call('ItemDefinitions'),
    results: call('Results'),
    aggregationResults: call('AggregationResults'),
  } as Calls;
}
