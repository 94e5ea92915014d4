import { z } from 'zod';
import { endpoint } from '../core/endpoint.ts';
import { Id, IdParams, Meta, NoContent, PageQuery, queryBoolean } from '../core/zod-helpers.ts';
import { ImportRecord } from './import.schemas.ts';

/** Spec §4: the referral data files (issue 12 §1). */
export const DataUploadType = z.enum([
  'referral',
  'reverse_referral',
  'ff1_file',
  'd_file',
  'outpatient_ef_file',
  'hospital_admission_ef_file',
]);
export type DataUploadType = z.infer<typeof DataUploadType>;

/** The two lists without a national standard: their columns are mapped onto canonical ones. */
export const MappedListType = z.enum(['referral', 'reverse_referral']);
export type MappedListType = z.infer<typeof MappedListType>;

/**
 * Canonical columns of the two lists (docs/referral-files.md), what the mapping step offers; `required`
 * groups name columns of which one must be mapped. libs/referral-files reads by these names.
 */
export const listColumns = {
  referral: {
    columns: [
      '紹介日',
      '患者ID',
      '紹介元医療機関コード',
      '紹介元医療機関名',
      '紹介元診療科',
      '紹介元医師名',
      '紹介先診療科',
      '紹介先医師名',
      '紹介目的',
      '初診',
      '管理番号',
    ],
    required: [['紹介日'], ['患者ID'], ['紹介元医療機関コード', '紹介元医療機関名']],
  },
  reverse_referral: {
    columns: ['逆紹介日', '患者ID', '逆紹介先医療機関コード', '逆紹介先医療機関名', '自院診療科', '管理番号'],
    required: [['逆紹介日'], ['患者ID'], ['逆紹介先医療機関コード', '逆紹介先医療機関名']],
  },
} as const satisfies Record<MappedListType, { columns: readonly string[]; required: readonly (readonly string[])[] }>;

/** An institution of a list that matched no 医療機関コード or name of the master (kept, counted, listed). */
export const UnmatchedInstitution = z.object({
  code: z.string().nullable(),
  name: z.string().nullable(),
  row_count: z.number().int(),
});

/** A 紹介先診療科 / 自院診療科 name of a list that names none of the tenant's own departments (kept as written). */
export const UnknownDepartment = z.object({ name: z.string(), row_count: z.number().int() });

/** How many distinct unknown department names an import record lists at most (most rows first). */
export const maxUnknownDepartments = 50;

/**
 * The import record of spec §3 with what a re-upload needs to show: rows new, updated and already
 * present (by record identity, docs/referral-files.md), rows whose institution matched nothing, and
 * rows whose department names none of the tenant's own departments (absent before the worker reads the file).
 */
export const DataUploadRecord = ImportRecord.extend({
  import_type: DataUploadType,
  total_row_count: z.number().int(),
  new_record_count: z.number().int(),
  updated_record_count: z.number().int(),
  unchanged_record_count: z.number().int(),
  unmatched_row_count: z.number().int(),
  unmatched_institutions: z.array(UnmatchedInstitution),
  unknown_department_row_count: z.number().int().optional(),
  unknown_departments: z.array(UnknownDepartment).max(maxUnknownDepartments).optional(),
  /**
   * An owner withdrew the upload and its rows are being taken back (an addition): the figures still
   * count them until the record leaves the history, when the withdrawal is complete.
   */
  withdrawing: z.boolean(),
});
export type DataUploadRecord = z.infer<typeof DataUploadRecord>;

/**
 * The imports an owner may withdraw (DELETE /data_uploads/{id}): the two lists, whose rows are identified
 * by their content, so a corrected export is new rows beside the old ones, and FF1, whose stays the
 * withdrawal takes back. D and EF facts are keyed by their stay and replaced by the next upload.
 */
export const withdrawableDataUploadTypes = [
  'referral',
  'reverse_referral',
  'ff1_file',
] as const satisfies readonly DataUploadType[];
export const isWithdrawableDataUpload = (type: DataUploadType): boolean =>
  (withdrawableDataUploadTypes as readonly string[]).includes(type);

export const DataUploadListQuery = PageQuery.extend({ import_type: DataUploadType.optional() });

/** Multipart fields besides `file`. */
export const DataUploadFields = z.object({
  import_type: DataUploadType,
  /** For the two lists: the saved mapping to read the file with; without it, columns are matched by name. */
  mapping_profile_id: Id.optional(),
});

const headerName = z.string().trim().min(1).max(100);

/**
 * A column of the file: its header name, or its 1-based position (3 = 3列目). A list without a header
 * row can only be mapped by position; a list with one may be mapped either way.
 */
export const MappingTarget = z.union([
  headerName,
  z
    .number()
    .int('列の位置は整数で指定してください')
    .min(1, '列の位置は1以上で指定してください')
    .max(1000, '列の位置は1000以下で指定してください'),
]);
export type MappingTarget = z.infer<typeof MappingTarget>;

/** A hospital's own export mapped once onto the canonical columns (canonical column → the file's header name or column position). */
export const MappingProfile = z.object({
  id: Id,
  import_type: MappedListType,
  name: z.string().trim().min(1, '名前を入力してください').max(50, '名前は50文字以内で入力してください'),
  mapping: z.record(z.string(), MappingTarget),
});
export type MappingProfile = z.infer<typeof MappingProfile>;

export const MappingProfilesInput = z.object({
  profiles: z.array(MappingProfile).max(50, '対応付けは50件まで保存できます'),
});
export type MappingProfilesInput = z.infer<typeof MappingProfilesInput>;

export const MappingProfiles = z.object({ profiles: z.array(MappingProfile), version: z.number().int() });

export const DataUploadTemplateParams = z.object({ import_type: MappedListType });

/** What `/data_sync_statuses` shows of one import type: its last import and when one last completed. */
export const DataSyncImportStatus = z.object({
  /** `communication` and `communication_update` (the communication imports) are additions to the spec's list. */
  import_type: z.union([
    DataUploadType,
    z.literal('label_values'),
    z.literal('communication'),
    z.literal('communication_update'),
  ]),
  last: ImportRecord.pick({
    id: true,
    filename: true,
    status: true,
    created_at: true,
    imported_row_count: true,
    failed_row_count: true,
  }).nullable(),
  last_completed_at: z.string().nullable(),
});

/**
 * One read model's state for this tenant. `status`: `ok` caught up (or close), `delayed` more than a few
 * seconds behind, `rebuilding` a new build is catching up beside the live one, `stopped` one of this
 * tenant's events could not be applied (an operator must look; `pnpm ops projections status`).
 */
export const DataSyncProjectionStatus = z.object({
  name: z.string(),
  status: z.enum(['ok', 'delayed', 'rebuilding', 'stopped']),
  lag_events: z.number().int(),
  lag_seconds: z.number(),
  events_per_second: z.number(),
  updated_at: z.string(),
});

/** The institution master's last sync (the national list of institutions every tenant shares). */
export const InstitutionMasterSync = z.object({
  status: z.enum(['running', 'completed', 'failed']),
  started_at: z.string(),
  finished_at: z.string().nullable(),
  total_rows: z.number().int(),
  inserted_count: z.number().int(),
  updated_count: z.number().int(),
  closed_count: z.number().int(),
  failed_count: z.number().int(),
});

export const DataSyncStatuses = z.object({
  imports: z.array(DataSyncImportStatus),
  institution_master: InstitutionMasterSync.nullable(),
  projections: z.array(DataSyncProjectionStatus),
  checked_at: z.string(),
});
export type DataSyncStatuses = z.infer<typeof DataSyncStatuses>;

/**
 * Read models (the projections' names) by what a user knows them as, for /data_sync_statuses. Every
 * projection the worker runs has one (read-model-labels.test.ts in @renkei/read-models holds them equal).
 */
export const readModelLabels: Readonly<Record<string, string>> = {
  medical_institution_crm: '連携先（医療機関・タグ・ラベル）',
  tags: 'タグ',
  communications: 'コミュニケーション',
  tasks: 'タスク',
  referrals: '紹介・逆紹介・入院データ',
  emails: 'HTMLメール',
  label_value_imports: 'ラベル値インポート履歴',
  communication_imports: 'コミュニケーション取り込み履歴',
  visit_rollups: '訪問分析',
  tenant_settings: 'テナント設定',
  vocs: '連携先の声',
  alerts: 'アラート',
  action_lists: 'アクションリスト',
  report_definitions: 'レポート',
  dashboards: 'ダッシュボード',
  unmatched_institution_dismissals: '照合しない医療機関',
};

const institutionText = z
  .string()
  .trim()
  .max(200, '200文字以内で入力してください')
  .nullable()
  .transform((v) => (v === '' ? null : v));

/**
 * An owner's match of an institution the lists name (code and name as written, null when the row had
 * none) to one of the master: the rows already imported follow it, and later imports use it.
 */
export const InstitutionMatchInput = z.object({
  institution_code: institutionText,
  institution_name: institutionText,
  medical_institution_id: Id,
});
export type InstitutionMatchInput = z.input<typeof InstitutionMatchInput>;

export const InstitutionMatch = z.object({
  institution_code: z.string().nullable(),
  institution_name: z.string().nullable(),
  medical_institution_id: Id,
});

/**
 * An owner's decision that a (code, name) of the lists is not to be matched (「不明」, the patient's own
 * doctor …): it leaves the list of unmatched institutions, its rows stay counted under no institution.
 * `dismissed: false` puts it back on the list.
 */
export const InstitutionDismissalInput = z.object({
  institution_code: institutionText,
  institution_name: institutionText,
  dismissed: z.boolean('照合しないかどうかを指定してください'),
});
export type InstitutionDismissalInput = z.input<typeof InstitutionDismissalInput>;

export const InstitutionDismissal = z.object({
  institution_code: z.string().nullable(),
  institution_name: z.string().nullable(),
  dismissed: z.boolean(),
});

/** The unmatched list: by default what is still to match; `dismissed=true` lists what owners set aside. */
export const UnmatchedInstitutionsQuery = PageQuery.extend({ dismissed: queryBoolean.default(false) });

/** A (code, name) of the tenant's lists that nothing matches yet, with the rows it holds. */
export const UnmatchedInstitutionRow = z.object({
  institution_code: z.string().nullable(),
  institution_name: z.string().nullable(),
  referral_count: z.number().int(),
  reverse_referral_count: z.number().int(),
  last_date: z.string(),
});

const d = { area: 'imports', feature: 'data_uploads', ownerOnly: true, served: true } as const;

/** Issue 12 §1: the spec shows the data-upload screen and the import record but no call. */
export const dataUploadEndpoints = {
  createDataUpload: endpoint({
    ...d,
    id: 'imports.createDataUpload',
    method: 'POST',
    path: '/data_uploads',
    service: 'command',
    summary: '紹介データ・DPCファイルのアップロード（独自追加）',
    body: DataUploadFields,
    response: DataUploadRecord,
    successStatus: 202,
    multipart: true,
  }),
  dataSyncStatuses: endpoint({
    area: 'imports',
    feature: 'data_uploads',
    served: true,
    id: 'imports.dataSyncStatuses',
    method: 'GET',
    path: '/data_sync_statuses',
    service: 'query',
    summary: 'データ連携状況（独自追加）',
    response: DataSyncStatuses,
    successStatus: 200,
  }),
  listDataUploads: endpoint({
    ...d,
    id: 'imports.listDataUploads',
    method: 'GET',
    path: '/data_uploads',
    service: 'query',
    summary: 'データアップロード履歴（独自追加）',
    query: DataUploadListQuery,
    response: z.object({ data: z.array(DataUploadRecord), meta: Meta }),
    successStatus: 200,
  }),
  dataUploadTemplate: endpoint({
    ...d,
    id: 'imports.dataUploadTemplate',
    method: 'GET',
    path: '/data_uploads/templates/{import_type}',
    service: 'query',
    summary: '紹介・逆紹介リストのテンプレートCSV（独自追加）',
    params: DataUploadTemplateParams,
    response: z.string(),
    successStatus: 200,
    download: true,
  }),
  listMappingProfiles: endpoint({
    ...d,
    id: 'imports.listMappingProfiles',
    method: 'GET',
    path: '/data_uploads/mapping_profiles',
    service: 'query',
    summary: '紹介・逆紹介リストの列の対応付け（独自追加）',
    response: MappingProfiles,
    successStatus: 200,
  }),
  replaceMappingProfiles: endpoint({
    ...d,
    id: 'imports.replaceMappingProfiles',
    method: 'PUT',
    path: '/data_uploads/mapping_profiles',
    service: 'command',
    summary: '紹介・逆紹介リストの列の対応付けの保存（独自追加）',
    body: MappingProfilesInput,
    response: MappingProfiles,
    successStatus: 200,
  }),
  listUnmatchedInstitutions: endpoint({
    ...d,
    id: 'imports.listUnmatchedInstitutions',
    method: 'GET',
    path: '/data_uploads/unmatched_institutions',
    service: 'query',
    summary: '医療機関が照合できなかった紹介・逆紹介の一覧（独自追加）',
    query: UnmatchedInstitutionsQuery,
    response: z.object({ data: z.array(UnmatchedInstitutionRow), meta: Meta }),
    successStatus: 200,
  }),
  matchInstitution: endpoint({
    ...d,
    id: 'imports.matchInstitution',
    method: 'PUT',
    path: '/data_uploads/institution_matches',
    service: 'command',
    summary: '照合できなかった医療機関の手動照合（独自追加）',
    body: InstitutionMatchInput,
    response: InstitutionMatch,
    successStatus: 200,
  }),
  dismissUnmatchedInstitution: endpoint({
    ...d,
    id: 'imports.dismissUnmatchedInstitution',
    // A set: sent twice it answers as once, and the owner's last click is what they want.
    versionGuarded: false,
    method: 'PUT',
    path: '/data_uploads/institution_dismissals',
    service: 'command',
    summary: '照合できなかった医療機関を照合しないものとする（戻す）（独自追加）',
    body: InstitutionDismissalInput,
    response: InstitutionDismissal,
    successStatus: 200,
  }),
  getDataUpload: endpoint({
    ...d,
    id: 'imports.getDataUpload',
    method: 'GET',
    path: '/data_uploads/{id}',
    service: 'query',
    summary: 'データアップロードの結果（行番号付きのエラー）（独自追加）',
    params: IdParams,
    response: DataUploadRecord,
    successStatus: 200,
  }),
  withdrawDataUpload: endpoint({
    ...d,
    id: 'imports.withdrawDataUpload',
    // Withdrawing twice answers as once (404 after the first); an import is no versioned record.
    versionGuarded: false,
    method: 'DELETE',
    path: '/data_uploads/{id}',
    service: 'command',
    summary: 'データアップロードの取り消し（取り込んだ行も削除）（独自追加）',
    params: IdParams,
    response: NoContent,
    successStatus: 204,
  }),
};
