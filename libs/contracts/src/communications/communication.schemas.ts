import { z } from 'zod';
import { endpoint } from '../core/endpoint.ts';
import {
  Id,
  IdParams,
  IsoDateTime,
  NoContent,
  PageQuery,
  SortDirection,
  paged,
  inputDate,
} from '../core/zod-helpers.ts';
import { CsvEncoding, MedicalInstitutionRef, Period, UserRef } from '../core/refs.ts';
import { CommunicationType, LabelValue, LabelValueInput } from '../labels/label.schemas.ts';
import { UploadedFile } from '../imports/import.schemas.ts';
import { TaskStatus } from '../tasks/task.schemas.ts';
import { VocPriority, VocStatus } from '../vocs/voc.schemas.ts';
import {
  NearbyInstitutions,
  NearbyInstitutionsQuery,
  RecentCommunicationInstitutions,
} from './institution-picker.schemas.ts';

export const CommunicationComment = z.object({
  id: Id,
  user: UserRef.nullable(),
  created_date: IsoDateTime,
  comment: z.string(),
  /**
   * Renkei addition (spec §3 lists no such field): the comment's number of edits (0 once posted), the
   * If-Match its author sends with an edit or a delete so that a stale one is a 409, not a lost edit.
   */
  version: z.number().int(),
});
export type CommunicationComment = z.infer<typeof CommunicationComment>;

export const CommunicationLike = z.object({ user: UserRef });
export type CommunicationLike = z.infer<typeof CommunicationLike>;

export const CommunicationTask = z.object({
  id: Id,
  title: z.string(),
  status: TaskStatus,
  deadline: z.iso.date().nullable(),
  staff: UserRef.nullable(),
});

export const CommunicationVoc = z.object({ id: Id, title: z.string(), status: VocStatus, priority: VocPriority });

export const Communication = z.object({
  id: Id,
  communication_type: CommunicationType,
  acted_date: z.iso.date(),
  category: z.string().nullable(),
  purpose: z.string().nullable(),
  story: z.string(),
  /** The email campaign this record was made from, if any. */
  email: z.object({ id: Id, title: z.string() }).nullable(),
  attachments: z.array(UploadedFile),
  event_name: z.string().nullable(),
  memo: z.string(),
  other_memo: z.string(),
  user: UserRef.nullable(),
  /** Who the staff met at the institution (free text). */
  person_in_charge_hospital: z.string().nullable(),
  /** Who attended from the own hospital (free text). */
  attendee: z.string().nullable(),
  is_doctor_attended: z.boolean(),
  medical_institution: MedicalInstitutionRef.nullable(),
  tasks: z.array(CommunicationTask),
  comments: z.array(CommunicationComment),
  likes: z.array(CommunicationLike),
  label_values: z.array(LabelValue),
  vocs: z.array(CommunicationVoc),
  created_at: IsoDateTime,
  updated_at: IsoDateTime,
  version: z.number().int(),
});
export type Communication = z.infer<typeof Communication>;

const optionalLine = (max: number, label: string) =>
  z.string().trim().max(max, `${label}は${max}文字以内で入力してください`).nullable().default(null);
const longText = (max: number, label: string) =>
  z.string().max(max, `${label}は${max}文字以内で入力してください`).default('');

const communicationFields = {
  communication_type: CommunicationType,
  acted_date: inputDate('活動日はYYYY-MM-DD形式で入力してください'),
  category: optionalLine(50, 'カテゴリ'),
  purpose: optionalLine(100, '目的'),
  story: longText(10000, '内容'),
  event_name: optionalLine(100, 'イベント名'),
  memo: longText(5000, 'メモ'),
  other_memo: longText(5000, 'その他メモ'),
  person_in_charge_hospital: optionalLine(100, '先方担当者'),
  attendee: optionalLine(200, '同行者'),
  is_doctor_attended: z.boolean().default(false),
  /** The staff member who acted; the caller when null. */
  user_id: Id.nullable().default(null),
  /** Files uploaded first through POST /uploaded_files. */
  attachment_ids: z.array(Id).max(10, '添付ファイルは10件まで登録できます').default([]),
  label_values: z.array(LabelValueInput).max(100).default([]),
};

export const CommunicationCreateInput = z.object({
  ...communicationFields,
  tasks: z
    .array(
      z.object({
        title: z
          .string()
          .trim()
          .min(1, 'タスクのタイトルを入力してください')
          .max(100, 'タスクのタイトルは100文字以内で入力してください'),
        staff_id: Id.nullable().default(null),
        deadline: inputDate('期限はYYYY-MM-DD形式で入力してください').nullable().default(null),
      }),
    )
    .max(20, 'タスクは20件まで同時に登録できます')
    .default([]),
});
export type CommunicationCreateInput = z.infer<typeof CommunicationCreateInput>;

export const CommunicationUpdateInput = z.object(communicationFields);
export type CommunicationUpdateInput = z.infer<typeof CommunicationUpdateInput>;

const labelTime = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, '時刻はHH:MM形式で入力してください');
const labelInteger = z
  .number({ error: '整数を入力してください' })
  .int('整数を入力してください')
  .min(-2147483648)
  .max(2147483647);

/** The fields of a label condition that only one component type's value has (the others are refused). */
export const labelFilterFieldsByType = {
  integer: ['integer_min', 'integer_max'],
  date: ['date_from', 'date_to'],
  time: ['time_from', 'time_to'],
  select: ['selection_ids'],
  radio: ['selection_ids'],
  checkbox: ['selection_ids'],
  own_department: ['own_department_ids'],
} as const;

/**
 * A condition on one communication label; the fields used depend on its component type: `text`
 * (contained in a text, textarea — and, as before ranges existed, an integer, date or time as text),
 * `integer_min`/`integer_max`, `date_from`/`date_to`, `time_from`/`time_to` (ranges, both ends
 * inclusive, either end open), `selection_ids` (select, radio, checkbox: any of them),
 * `own_department_ids`. `is_empty: true` finds records without a value for the label. Conditions of one
 * filter all hold (AND). A field another component type's value has is a 422 (checked against the label).
 */
export const CommunicationLabelFilter = z
  .object({
    label_id: Id,
    text: z.string().trim().max(100, 'ラベルの検索文字列は100文字以内で入力してください').optional(),
    integer_min: labelInteger.optional(),
    integer_max: labelInteger.optional(),
    date_from: inputDate('日付はYYYY-MM-DD形式で入力してください').optional(),
    date_to: inputDate('日付はYYYY-MM-DD形式で入力してください').optional(),
    time_from: labelTime.optional(),
    time_to: labelTime.optional(),
    selection_ids: z.array(Id).max(100).optional(),
    own_department_ids: z.array(Id).max(100).optional(),
    is_empty: z.boolean().optional(),
  })
  .superRefine((f, ctx) => {
    const reversed = (field: string, message: string) => ctx.addIssue({ code: 'custom', path: [field], message });
    if (f.integer_min !== undefined && f.integer_max !== undefined && f.integer_min > f.integer_max)
      reversed('integer_max', '最大値は最小値以上を入力してください');
    if (f.date_from && f.date_to && f.date_from > f.date_to)
      reversed('date_to', '終了日は開始日以降を入力してください');
    if (f.time_from && f.time_to && f.time_from > f.time_to)
      reversed('time_to', '終了時刻は開始時刻以降を入力してください');
    // Fields of two component types cannot both hold for one label's value.
    const used = [...new Set(Object.values(labelFilterFieldsByType).map((fields) => fields.join()))]
      .map((fields) => fields.split(',').filter((k) => f[k as keyof typeof f] !== undefined))
      .filter((fields) => fields.length > 0);
    if (used.length > 1) reversed(used[1]![0]!, 'ラベルの種類に合わない条件です');
  });
export type CommunicationLabelFilter = z.infer<typeof CommunicationLabelFilter>;

const communicationConditions = {
  period: Period.optional(),
  communication_types: z.array(CommunicationType).optional(),
  user_ids: z.array(Id).max(200).optional(),
  keyword: z.string().trim().max(100, 'キーワードは100文字以内で入力してください').optional(),
  is_doctor_attended: z.boolean().optional(),
  label_filters: z.array(CommunicationLabelFilter).max(20, 'ラベルの条件は20件まで指定できます').optional(),
  sort_by: z.enum(['acted_date', 'created_at', 'updated_at']).default('acted_date'),
  sort: SortDirection.default('desc'),
  ...PageQuery.shape,
};

export const CommunicationSearchBody = z.object({
  ...communicationConditions,
  medical_institution_ids: z.array(Id).max(1000).optional(),
  tag_ids: z.array(Id).max(100).optional(),
});
export type CommunicationSearchBody = z.infer<typeof CommunicationSearchBody>;

/** The whole result of a search as CSV (every page, in the search's order). */
export const CommunicationExportBody = CommunicationSearchBody.omit({ page: true, per_page: true }).extend({
  encoding: CsvEncoding.default('utf-8'),
});
export type CommunicationExportBody = z.infer<typeof CommunicationExportBody>;

export const MedicalInstitutionCommunicationSearchBody = z.object(communicationConditions);
export type MedicalInstitutionCommunicationSearchBody = z.infer<typeof MedicalInstitutionCommunicationSearchBody>;

export const CommentInput = z.object({
  comment: z.string().trim().min(1, 'コメントを入力してください').max(2000, 'コメントは2000文字以内で入力してください'),
});
export type CommentInput = z.infer<typeof CommentInput>;

export const CommunicationVocsInput = z.object({ voc_ids: z.array(Id).max(100) });

export const CommunicationParams = z.object({ communication_id: Id });
export const CommentParams = z.object({ communication_id: Id, id: Id });

const c = { area: 'communications', feature: 'communications', served: false } as const;

export const communicationEndpoints = {
  getCommunication: endpoint({
    ...c,
    served: true,
    id: 'communications.get',
    method: 'GET',
    path: '/communications/{id}',
    service: 'query',
    summary: '活動記録の詳細',
    params: IdParams,
    response: Communication,
    successStatus: 200,
  }),
  updateCommunication: endpoint({
    ...c,
    served: true,
    id: 'communications.update',
    method: 'PUT',
    path: '/communications/{id}',
    service: 'command',
    summary: '活動記録の更新',
    params: IdParams,
    body: CommunicationUpdateInput,
    response: Communication,
    successStatus: 200,
  }),
  deleteCommunication: endpoint({
    ...c,
    served: true,
    id: 'communications.delete',
    method: 'DELETE',
    path: '/communications/{id}',
    service: 'command',
    summary: '活動記録の削除',
    params: IdParams,
    response: NoContent,
    successStatus: 204,
  }),
  searchCommunications: endpoint({
    ...c,
    served: true,
    id: 'communications.search',
    method: 'POST',
    path: '/communications/search_results',
    service: 'query',
    summary: '活動記録の検索',
    body: CommunicationSearchBody,
    response: paged(Communication),
    successStatus: 200,
  }),
  exportCommunications: endpoint({
    ...c,
    served: true,
    id: 'communications.export',
    method: 'POST',
    path: '/communications/search_results/export',
    service: 'query',
    summary: '活動記録検索結果のCSV出力（独自追加）',
    body: CommunicationExportBody,
    response: z.string(),
    successStatus: 200,
    download: true,
  }),
  createForMedicalInstitution: endpoint({
    ...c,
    served: true,
    id: 'communications.createForMedicalInstitution',
    method: 'POST',
    path: '/medical_institutions/{id}/communications',
    service: 'command',
    summary: '医療機関への活動記録の登録',
    params: IdParams,
    body: CommunicationCreateInput,
    response: Communication,
    successStatus: 201,
  }),
  searchForMedicalInstitution: endpoint({
    ...c,
    served: true,
    id: 'communications.searchForMedicalInstitution',
    method: 'POST',
    path: '/medical_institutions/{id}/communications/search_results',
    service: 'query',
    summary: '医療機関の活動記録の検索',
    params: IdParams,
    body: MedicalInstitutionCommunicationSearchBody,
    response: paged(Communication),
    successStatus: 200,
  }),
  createComment: endpoint({
    ...c,
    served: true,
    id: 'communications.createComment',
    method: 'POST',
    path: '/communications/{communication_id}/comments',
    service: 'command',
    summary: 'コメント投稿',
    params: CommunicationParams,
    body: CommentInput,
    response: CommunicationComment,
    successStatus: 201,
  }),
  updateComment: endpoint({
    ...c,
    served: true,
    id: 'communications.updateComment',
    method: 'PUT',
    path: '/communications/{communication_id}/comments/{id}',
    service: 'command',
    summary: 'コメント編集（投稿者のみ）',
    params: CommentParams,
    body: CommentInput,
    response: CommunicationComment,
    successStatus: 200,
  }),
  deleteComment: endpoint({
    ...c,
    served: true,
    id: 'communications.deleteComment',
    method: 'DELETE',
    path: '/communications/{communication_id}/comments/{id}',
    service: 'command',
    summary: 'コメント削除（投稿者のみ）',
    params: CommentParams,
    response: NoContent,
    successStatus: 204,
  }),
  like: endpoint({
    ...c,
    served: true,
    id: 'communications.like',
    versionGuarded: false,
    method: 'PUT',
    path: '/communications/{communication_id}/likes',
    service: 'command',
    summary: 'いいね（何度送っても1件）',
    params: CommunicationParams,
    response: z.array(CommunicationLike),
    successStatus: 200,
  }),
  unlike: endpoint({
    ...c,
    served: true,
    id: 'communications.unlike',
    versionGuarded: false,
    method: 'DELETE',
    path: '/communications/{communication_id}/likes',
    service: 'command',
    summary: 'いいねの取り消し',
    params: CommunicationParams,
    response: NoContent,
    successStatus: 204,
  }),
  setVocs: endpoint({
    ...c,
    served: true,
    id: 'communications.setVocs',
    versionGuarded: false,
    method: 'PUT',
    path: '/communications/{communication_id}/vocs',
    service: 'command',
    summary: '活動記録に紐づくVOCの設定',
    params: CommunicationParams,
    body: CommunicationVocsInput,
    response: z.array(CommunicationVoc),
    successStatus: 200,
  }),
  // The form's institution picker (issue 11 §5): what the spec's calls do not give.
  listRecentCommunicationInstitutions: endpoint({
    ...c,
    served: true,
    id: 'communications.recentMedicalInstitutions',
    method: 'GET',
    path: '/communications/recent_medical_institutions',
    service: 'query',
    summary: '自分が最近活動を記録した医療機関（独自追加）',
    response: RecentCommunicationInstitutions,
    successStatus: 200,
  }),
  listNearbyMedicalInstitutions: endpoint({
    ...c,
    served: true,
    id: 'communications.nearbyMedicalInstitutions',
    method: 'GET',
    path: '/medical_institutions/nearby',
    service: 'query',
    summary: '現在地の近くの医療機関（独自追加）',
    query: NearbyInstitutionsQuery,
    response: NearbyInstitutions,
    successStatus: 200,
  }),
};

export * from './institution-picker.schemas.ts';
