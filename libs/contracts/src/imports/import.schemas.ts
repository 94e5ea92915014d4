import { z } from 'zod';
import { endpoint } from '../core/endpoint.ts';
import { Id, IdParams, IsoDateTime, NoContent, PageQuery, paged } from '../core/zod-helpers.ts';
import { CsvEncoding, UserRef } from '../core/refs.ts';

/** Spec §4. */
export const ImportStatus = z.enum(['waiting', 'processing', 'completed', 'failed']);
export type ImportStatus = z.infer<typeof ImportStatus>;

/** Spec §4 data-file types, plus the CSV imports of communications and institution label values. */
export const ImportType = z.enum([
  'referral',
  'ff1_file',
  'd_file',
  'outpatient_ef_file',
  'hospital_admission_ef_file',
  'reverse_referral',
  'communication',
  'communication_update',
  'medical_institution_label_value',
]);
export type ImportType = z.infer<typeof ImportType>;

export const ImportErrorMessage = z.object({
  /** 1-based data row of the file (the header is row 0); null for a file-level error. */
  row_number: z.number().int().nullable(),
  message: z.string(),
});
export type ImportErrorMessage = z.infer<typeof ImportErrorMessage>;

/** Spec §3 import record. */
export const ImportRecord = z.object({
  id: Id,
  filename: z.string(),
  status: ImportStatus,
  error_messages: z.array(ImportErrorMessage),
  imported_row_count: z.number().int(),
  failed_row_count: z.number().int(),
  unprocessed_row_count: z.number().int(),
  /** Row at which a fatal problem stopped the run; rows after it are unprocessed. */
  abortion_row_number: z.number().int().nullable(),
  created_at: IsoDateTime,
  created_by: UserRef.nullable(),
  import_type: ImportType,
});
export type ImportRecord = z.infer<typeof ImportRecord>;

/** Non-file fields of an import upload; the file is the multipart part named `file`. */
export const ImportUploadFields = z.object({
  /** Detected from the bytes when absent. */
  encoding: CsvEncoding.optional(),
});
export type ImportUploadFields = z.infer<typeof ImportUploadFields>;

export const UploadedFile = z.object({ id: Id, url: z.string(), filename: z.string() });
export type UploadedFile = z.infer<typeof UploadedFile>;

export const ImportTemplateQuery = z.object({ encoding: CsvEncoding.default('utf-8') });

export const importEndpoints = {
  listCommunicationImports: endpoint({
    id: 'imports.listCommunicationImports',
    area: 'imports',
    method: 'GET',
    path: '/imports/communications',
    service: 'query',
    summary: '活動記録インポート履歴',
    query: PageQuery,
    response: paged(ImportRecord),
    successStatus: 200,
    feature: 'communications',
    served: true,
  }),
  importCommunications: endpoint({
    id: 'imports.importCommunications',
    area: 'imports',
    method: 'POST',
    path: '/imports/communications',
    service: 'command',
    summary: '活動記録の一括登録（CSV）',
    body: ImportUploadFields,
    response: ImportRecord,
    successStatus: 202,
    feature: 'communications',
    ownerOnly: true,
    multipart: true,
    served: true,
  }),
  importCommunicationUpdates: endpoint({
    id: 'imports.importCommunicationUpdates',
    versionGuarded: false,
    area: 'imports',
    method: 'PUT',
    path: '/imports/communications',
    service: 'command',
    summary: '活動記録の一括更新（CSV、ID列で既存の記録を更新）',
    body: ImportUploadFields,
    response: ImportRecord,
    successStatus: 202,
    feature: 'communications',
    ownerOnly: true,
    multipart: true,
    served: true,
  }),
  deleteCommunicationImport: endpoint({
    id: 'imports.deleteCommunicationImport',
    versionGuarded: false,
    area: 'imports',
    method: 'DELETE',
    path: '/imports/communications/{id}',
    service: 'command',
    summary: '活動記録インポートの取り消し（登録した活動記録も削除）',
    params: IdParams,
    response: NoContent,
    successStatus: 204,
    feature: 'communications',
    ownerOnly: true,
    served: true,
  }),
  communicationImportTemplate: endpoint({
    id: 'imports.communicationImportTemplate',
    area: 'imports',
    method: 'GET',
    path: '/imports/communications/template',
    service: 'query',
    summary: '活動記録インポートのテンプレートCSV（独自追加）',
    query: ImportTemplateQuery,
    response: z.string(),
    successStatus: 200,
    feature: 'communications',
    download: true,
    served: true,
  }),
  listLabelValueImports: endpoint({
    id: 'imports.listLabelValueImports',
    area: 'imports',
    method: 'GET',
    path: '/imports/medical_institution_label_values',
    service: 'query',
    summary: '医療機関ラベル値インポート履歴',
    query: PageQuery,
    response: paged(ImportRecord),
    successStatus: 200,
    feature: 'medical_institution_labels',
    served: true,
  }),
  importLabelValues: endpoint({
    id: 'imports.importLabelValues',
    area: 'imports',
    method: 'POST',
    path: '/imports/medical_institution_label_values',
    service: 'command',
    summary: '医療機関ラベル値の一括登録（CSV）',
    body: ImportUploadFields,
    response: ImportRecord,
    successStatus: 202,
    feature: 'medical_institution_labels',
    ownerOnly: true,
    multipart: true,
    served: true,
  }),
  labelValueImportTemplate: endpoint({
    id: 'imports.labelValueImportTemplate',
    area: 'imports',
    method: 'GET',
    path: '/imports/medical_institution_label_values/template',
    service: 'query',
    summary: '医療機関ラベル値インポートのテンプレートCSV（独自追加）',
    query: ImportTemplateQuery,
    response: z.string(),
    successStatus: 200,
    feature: 'medical_institution_labels',
    download: true,
    served: true,
  }),
  uploadFile: endpoint({
    id: 'imports.uploadFile',
    area: 'imports',
    method: 'POST',
    path: '/uploaded_files',
    service: 'command',
    summary: 'ファイルのアップロード（添付ファイル用）',
    response: UploadedFile,
    successStatus: 201,
    feature: null,
    multipart: true,
    served: true,
  }),
  downloadUploadedFile: endpoint({
    id: 'imports.downloadUploadedFile',
    area: 'imports',
    method: 'GET',
    path: '/uploaded_files/{id}',
    service: 'query',
    summary: '添付ファイルの内容（独自追加。署名付きURLは /files/{id} で認証なしに開ける）',
    params: IdParams,
    response: z.string(),
    successStatus: 200,
    feature: null,
    download: true,
    served: true,
  }),
};
