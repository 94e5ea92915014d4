import type { MappingProfileData, ReferralDataImportType } from '@renkei/domain';
import { column, defineTable, type KyselyTables } from '../shared/table.ts';

/** One row per referral-data upload with its progress and what it changed, for /data_uploads. */
export const referralDataImportsTable = defineTable({
  name: 'referral_data_imports',
  columns: {
    tenant_id: column.uuid(),
    id: column.uuid(),
    import_type: column.text<ReferralDataImportType>(),
    filename: column.text(),
    status: column.text<'waiting' | 'processing' | 'completed' | 'failed'>(),
    error_messages: column.jsonb<{ row_number: number | null; message: string }[]>().default(`'[]'`),
    total_row_count: column.int().default('0'),
    imported_row_count: column.int().default('0'),
    failed_row_count: column.int().default('0'),
    unprocessed_row_count: column.int().default('0'),
    abortion_row_number: column.int().nullable(),
    new_record_count: column.int().default('0'),
    updated_record_count: column.int().default('0'),
    unchanged_record_count: column.int().default('0'),
    unmatched_row_count: column.int().default('0'),
    /** `"code|name"` → rows, of the rows whose institution matched nothing. */
    unmatched_institutions: column.jsonb<Record<string, number>>().default(`'{}'`),
    /** Rows whose 紹介先診療科 / 自院診療科 names none of the tenant's own departments (kept as written). */
    unknown_department_row_count: column.int().default('0'),
    /** Department name as written → rows, the `maxStoredUnknownDepartments` names with most rows. */
    unknown_departments: column.jsonb<Record<string, number>>().default(`'{}'`),
    created_at: column.timestamptz(),
    created_by: column.uuid().nullable(),
    /** An owner asked to withdraw the upload (DELETE /data_uploads/{id}): its rows are being taken back. */
    withdrawal_requested_at: column.timestamptz().nullable(),
    /** The withdrawal's end was applied: the figures no longer count its rows, and it left the history. */
    withdrawn_at: column.timestamptz().nullable(),
  },
  primaryKey: ['tenant_id', 'id'],
  indexes: [['tenant_id', 'created_at DESC', 'id']],
});

/**
 * The other uploads that hold a fact besides the one its row names (`import_id`, the upload that last
 * wrote its content): written only when an upload meets a fact already there, so an import of new rows
 * writes nothing here. A withdrawn upload's rows stay while another upload holds them.
 */
export const referralFactImportsTable = defineTable({
  name: 'referral_fact_imports',
  columns: {
    tenant_id: column.uuid(),
    import_id: column.uuid(),
    kind: column.text<'referral' | 'reverse' | 'admission'>(),
    identity: column.text(),
  },
  primaryKey: ['tenant_id', 'import_id', 'kind', 'identity'],
  indexes: [['tenant_id', 'kind', 'identity']],
});

/** The owners' saved column mappings of the two lists, the whole list per tenant. */
export const mappingProfilesTable = defineTable({
  name: 'data_upload_mapping_profiles',
  columns: {
    tenant_id: column.uuid(),
    profiles: column.jsonb<MappingProfileData[]>(),
    version: column.int(),
  },
  primaryKey: ['tenant_id'],
});

/** One row per referral (identity: docs/referral-files.md); a re-upload updates it. */
export const referralsTable = defineTable({
  name: 'referrals',
  columns: {
    tenant_id: column.uuid(),
    identity: column.text(),
    id: column.uuid(),
    referral_date: column.date(),
    patient_id: column.text(),
    patient_key: column.text(),
    medical_institution_id: column.uuid().nullable(),
    institution_code: column.text().nullable(),
    institution_name: column.text().nullable(),
    from_department: column.text().nullable(),
    from_doctor: column.text().nullable(),
    to_department: column.text().nullable(),
    own_department_id: column.uuid().nullable(),
    to_doctor: column.text().nullable(),
    purpose: column.text().nullable(),
    first_visit: column.boolean().nullable(),
    source_id: column.text().nullable(),
    import_id: column.uuid(),
    content: column.text(),
  },
  primaryKey: ['tenant_id', 'identity'],
  indexes: [
    ['tenant_id', 'medical_institution_id', 'referral_date DESC'],
    ['tenant_id', 'patient_key', 'referral_date'],
    ['tenant_id', 'id'],
    // The first and last date the tenant's referral data covers (analysis: null before, 0 within).
    ['tenant_id', 'referral_date'],
    // An upload's rows, for its withdrawal: equal keys, deduplicated, so an import barely pays for it.
    ['tenant_id', 'import_id'],
  ],
});

export const reverseReferralsTable = defineTable({
  name: 'reverse_referrals',
  columns: {
    tenant_id: column.uuid(),
    identity: column.text(),
    id: column.uuid(),
    reverse_referral_date: column.date(),
    patient_id: column.text(),
    patient_key: column.text(),
    medical_institution_id: column.uuid().nullable(),
    institution_code: column.text().nullable(),
    institution_name: column.text().nullable(),
    own_department: column.text().nullable(),
    own_department_id: column.uuid().nullable(),
    source_id: column.text().nullable(),
    import_id: column.uuid(),
    content: column.text(),
  },
  primaryKey: ['tenant_id', 'identity'],
  indexes: [
    ['tenant_id', 'medical_institution_id', 'reverse_referral_date DESC'],
    ['tenant_id', 'patient_key', 'reverse_referral_date'],
    ['tenant_id', 'reverse_referral_date'],
    ['tenant_id', 'import_id'],
  ],
});

/** One row per stay (§1.7); `referral_id` is the referral it followed, kept by the join. */
export const hospitalAdmissionsTable = defineTable({
  name: 'hospital_admissions',
  columns: {
    tenant_id: column.uuid(),
    identity: column.text(),
    id: column.uuid(),
    patient_key: column.text(),
    admission_date: column.date(),
    discharge_date: column.date().nullable(),
    department_code: column.text().nullable(),
    icd10_code: column.text().nullable(),
    icd10_name: column.text().nullable(),
    kcode: column.text().nullable(),
    operation_name: column.text().nullable(),
    operation_date: column.date().nullable(),
    anesthesia: column.text().nullable(),
    dpc_code: column.text().nullable(),
    dpc_name: column.text().nullable(),
    scores: column.jsonb<Record<string, string[]>>(),
    admission_route_code: column.text().nullable(),
    referral_in: column.boolean().nullable(),
    discharge_destination_code: column.text().nullable(),
    discharge_outcome_code: column.text().nullable(),
    referral_id: column.uuid().nullable(),
    import_id: column.uuid(),
    content: column.text(),
  },
  primaryKey: ['tenant_id', 'identity'],
  indexes: [
    ['tenant_id', 'patient_key', 'admission_date'],
    ['tenant_id', 'referral_id'],
    ['tenant_id', 'import_id'],
  ],
});

/** The counts every analysis rollup carries (a referral is admitted / operated when a stay followed it). */
const rollupCounts = {
  referral_count: column.int(),
  admitted_count: column.int(),
  operated_count: column.int(),
};

/**
 * Monthly figures per (tenant, institution, own department, month): what charts, rankings, the partner
 * search and reports read instead of the facts. A referral counts in its own month (admitted / operated
 * when a stay followed it, whenever that stay's data arrived); a reverse referral in its month, under
 * the institution it went to. `own_department_id` is the nil uuid for "no own department".
 */
export const referralMonthlyRollupsTable = defineTable({
  name: 'referral_monthly_rollups',
  columns: {
    tenant_id: column.uuid(),
    medical_institution_id: column.uuid(),
    own_department_id: column.uuid(),
    month: column.date(),
    referral_count: column.int(),
    first_visit_count: column.int(),
    admitted_count: column.int(),
    operated_count: column.int(),
    reverse_referral_count: column.int(),
  },
  primaryKey: ['tenant_id', 'medical_institution_id', 'own_department_id', 'month'],
  indexes: [['tenant_id', 'month']],
});

/** How a referral was marked in its file: 初診, 再診, or not said (counted only under 'all'). */
export type VisitKind = 'first' | 'return' | 'unknown';

/**
 * The analysis figures (charts and rankings, issue 13) per institution, own department, referral
 * department (紹介元診療科, the file's text; '' when empty), first/return visit and segment: the part of a
 * Monday-to-Sunday week inside one month, keyed by its first day. A segment never crosses a week or a
 * month, so both weekly and monthly (and longer) sums are exact. Reverse referrals count under their
 * institution and own department with referral department '' and visit 'unknown'.
 */
export const referralPeriodRollupsTable = defineTable({
  name: 'referral_period_rollups',
  columns: {
    tenant_id: column.uuid(),
    medical_institution_id: column.uuid(),
    own_department_id: column.uuid(),
    referral_department: column.text(),
    visit: column.text<VisitKind>(),
    segment: column.date(),
    ...rollupCounts,
    reverse_referral_count: column.int(),
  },
  primaryKey: ['tenant_id', 'medical_institution_id', 'own_department_id', 'referral_department', 'visit', 'segment'],
  indexes: [['tenant_id', 'segment']],
});

/**
 * The referral aggregation's figures (POST /referral_reports/aggregation_results) per month with the
 * case mix: `mdc` is the first two characters of the DPC code of the first stay that followed the
 * referral, `kcode` the K-code of its first stay with an operation ('' for none of either).
 */
export const referralCaseRollupsTable = defineTable({
  name: 'referral_case_rollups',
  columns: {
    tenant_id: column.uuid(),
    medical_institution_id: column.uuid(),
    own_department_id: column.uuid(),
    referral_department: column.text(),
    visit: column.text<VisitKind>(),
    mdc: column.text(),
    kcode: column.text(),
    month: column.date(),
    ...rollupCounts,
  },
  primaryKey: [
    'tenant_id',
    'medical_institution_id',
    'own_department_id',
    'referral_department',
    'visit',
    'mdc',
    'kcode',
    'month',
  ],
  indexes: [['tenant_id', 'month']],
});

/**
 * The analysis rollups summed over institutions, per tenant: what a call reads when it neither filters
 * nor groups by anything of the institution (the top page's trend and department charts, most
 * aggregations), a few thousand rows a year instead of one per referral. Kept from the rows above.
 */
export const referralTenantPeriodRollupsTable = defineTable({
  name: 'referral_tenant_period_rollups',
  columns: {
    tenant_id: column.uuid(),
    own_department_id: column.uuid(),
    referral_department: column.text(),
    visit: column.text<VisitKind>(),
    segment: column.date(),
    ...rollupCounts,
    reverse_referral_count: column.int(),
  },
  primaryKey: ['tenant_id', 'own_department_id', 'referral_department', 'visit', 'segment'],
  indexes: [['tenant_id', 'segment']],
});

export const referralTenantCaseRollupsTable = defineTable({
  name: 'referral_tenant_case_rollups',
  columns: {
    tenant_id: column.uuid(),
    own_department_id: column.uuid(),
    referral_department: column.text(),
    visit: column.text<VisitKind>(),
    mdc: column.text(),
    kcode: column.text(),
    month: column.date(),
    ...rollupCounts,
  },
  primaryKey: ['tenant_id', 'own_department_id', 'referral_department', 'visit', 'mdc', 'kcode', 'month'],
  indexes: [['tenant_id', 'month']],
});

/**
 * The spans of `referral_institution_rollups`: month, quarter and 年度, each wholly inside the next (a
 * 年度 starts in April), and `fiscal_year_to_month`, the 年度's total from April to the end of the month
 * the row is dated on (a 年度-to-date ranking's figures in one row per institution, v11).
 */
export type InstitutionRollupSpan = 'month' | 'quarter' | 'fiscal_year' | 'fiscal_year_to_month';

/**
 * The analysis figures per institution without any other dimension, per month, quarter (April–June …)
 * and 年度: what rankings and institution charts read when they filter or group by nothing but the
 * institution (and its facility type, area or tags, looked up beside them). A whole 年度 is one row per
 * institution instead of one per institution, own department, referral department, visit and week.
 * Kept from `referral_period_rollups` for every institution-month touched.
 */
export const referralInstitutionRollupsTable = defineTable({
  name: 'referral_institution_rollups',
  columns: {
    tenant_id: column.uuid(),
    medical_institution_id: column.uuid(),
    span: column.text<InstitutionRollupSpan>(),
    period_start: column.date(),
    ...rollupCounts,
    reverse_referral_count: column.int(),
  },
  primaryKey: ['tenant_id', 'medical_institution_id', 'span', 'period_start'],
  // Covering (issue 13 §3): a ranking reads a span's rows of every institution by index only.
  indexes: [
    [
      'tenant_id',
      'span',
      'period_start',
      'medical_institution_id',
      'referral_count',
      'admitted_count',
      'operated_count',
      'reverse_referral_count',
    ],
    // In the order of a ranking's figures: a 年度's biggest referrers are the first entries read.
    ['tenant_id', 'span', 'period_start', 'referral_count', 'reverse_referral_count', 'medical_institution_id'],
  ],
});

/**
 * Owners' hand matches of a list's (code, name) to an institution of the master ('' for a missing
 * code or name: a key column cannot be null), applied to rows the master did not match.
 */
export const institutionMatchesTable = defineTable({
  name: 'referral_institution_matches',
  columns: {
    tenant_id: column.uuid(),
    institution_code: column.text(),
    institution_name: column.text(),
    medical_institution_id: column.uuid(),
  },
  primaryKey: ['tenant_id', 'institution_code', 'institution_name'],
});

/**
 * The tenant's own departments (自院診療科) as this projection last saw them (OwnDepartmentsReplaced):
 * what a fact's own department is checked against and matched by name with (docs/decisions.md, "Own
 * departments re-matched by the referrals projection"). Kept here, not read from `rm.own_departments`:
 * another projection's table is not ordered with this one's events. `name_key` is the name NFKC
 * normalised and trimmed. A tenant whose list is known has a row with the nil uuid and no `name_key`,
 * so an empty list is known too.
 */
export const referralOwnDepartmentsTable = defineTable({
  name: 'referral_own_departments',
  columns: {
    tenant_id: column.uuid(),
    own_department_id: column.uuid(),
    name_key: column.text().nullable(),
  },
  primaryKey: ['tenant_id', 'own_department_id'],
});

/**
 * What D and inpatient EF files say of a stay (docs/decisions.md, "D and EF files"), per 施設コード,
 * patient and admission day: kept whichever file comes first and merged into the FF1 stay of that day
 * (the lowest 回数管理番号) whenever it exists. D's latest 算定 period gives the DPC code.
 */
export const dpcStayClaimsTable = defineTable({
  name: 'dpc_stay_claims',
  columns: {
    tenant_id: column.uuid(),
    patient_key: column.text(),
    admission_date: column.date(),
    facility_code: column.text(),
    discharge_date: column.date().nullable(),
    department_code: column.text().nullable(),
    dpc_code: column.text().nullable(),
    dpc_period_end: column.date().nullable(),
    import_id: column.uuid(),
  },
  primaryKey: ['tenant_id', 'patient_key', 'admission_date', 'facility_code'],
});

/** Inpatient EF operations (データ区分 50) and anesthesia (54), one per stay, day and code. */
export const dpcStayProceduresTable = defineTable({
  name: 'dpc_stay_procedures',
  columns: {
    tenant_id: column.uuid(),
    identity: column.text(),
    patient_key: column.text(),
    admission_date: column.date(),
    facility_code: column.text(),
    kind: column.text<'operation' | 'anesthesia'>(),
    procedure_date: column.date().nullable(),
    code: column.text(),
    name: column.text(),
    import_id: column.uuid(),
  },
  primaryKey: ['tenant_id', 'identity'],
  indexes: [['tenant_id', 'patient_key', 'admission_date']],
});

/** Outpatient days of a patient from 外来EF (one per 施設, patient and day). */
export const outpatientVisitsTable = defineTable({
  name: 'outpatient_visits',
  columns: {
    tenant_id: column.uuid(),
    patient_key: column.text(),
    visit_date: column.date(),
    facility_code: column.text(),
    department_code: column.text().nullable(),
    import_id: column.uuid(),
  },
  primaryKey: ['tenant_id', 'patient_key', 'visit_date', 'facility_code'],
});

export type ReferralsTables = KyselyTables<
  | typeof referralDataImportsTable
  | typeof referralsTable
  | typeof reverseReferralsTable
  | typeof hospitalAdmissionsTable
  | typeof referralMonthlyRollupsTable
  | typeof referralPeriodRollupsTable
  | typeof referralCaseRollupsTable
  | typeof referralTenantPeriodRollupsTable
  | typeof referralTenantCaseRollupsTable
  | typeof referralInstitutionRollupsTable
  | typeof mappingProfilesTable
  | typeof institutionMatchesTable
  | typeof dpcStayClaimsTable
  | typeof dpcStayProceduresTable
  | typeof outpatientVisitsTable
>;

/**
 * The patients an import's chunks touched whose stays are not re-linked yet (chunk events with
 * `rollups_deferred`): taken by the import's `link` slices, or all at once at its end.
 */
export const referralPendingPatientsTable = defineTable({
  name: 'referral_pending_patients',
  columns: {
    tenant_id: column.uuid(),
    import_id: column.uuid(),
    patient_key: column.text(),
  },
  primaryKey: ['tenant_id', 'import_id', 'patient_key'],
});

/**
 * The institution-months whose rollups an import's chunks (or its `link` slices) left out of date:
 * taken by the import's `rollup` slices, or all at once at its end. Recomputed by the same statements
 * as every other change (`recompute`), so there is one way a rollup row is made.
 */
export const referralPendingMonthsTable = defineTable({
  name: 'referral_pending_months',
  columns: {
    tenant_id: column.uuid(),
    import_id: column.uuid(),
    medical_institution_id: column.uuid(),
    month: column.date(),
  },
  primaryKey: ['tenant_id', 'import_id', 'medical_institution_id', 'month'],
});
