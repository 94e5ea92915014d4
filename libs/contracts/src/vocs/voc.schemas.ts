import { z } from 'zod';
import { endpoint } from '../core/endpoint.ts';
import {
  Id,
  IdParams,
  IsoDateTime,
  NoContent,
  PageQuery,
  SortDirection,
  inputDate,
  paged,
} from '../core/zod-helpers.ts';
import { CsvEncoding, MedicalInstitutionRef, UserRef } from '../core/refs.ts';
import { CommunicationType } from '../labels/label.schemas.ts';

/** Spec §4. */
export const VocStatus = z.enum(['NOT_STARTED', 'IN_PROGRESS', 'COMPLETED', 'NO_ACTION_REQUIRED']);
export type VocStatus = z.infer<typeof VocStatus>;
export const VocPriority = z.enum(['LOW', 'MIDDLE', 'HIGH']);
export type VocPriority = z.infer<typeof VocPriority>;

export const VocGroup = z.object({ id: Id, name: z.string() });
export type VocGroup = z.infer<typeof VocGroup>;

export const Voc = z.object({
  id: Id,
  reported_date: z.iso.date(),
  medical_institution_id: Id,
  title: z.string(),
  status: VocStatus,
  detail_text: z.string(),
  action_text: z.string(),
  priority: VocPriority,
  user: UserRef.nullable(),
  voc_group_id: Id.nullable(),
  communication_ids: z.array(Id),
  updated_at: IsoDateTime,
  version: z.number().int(),
});
export type Voc = z.infer<typeof Voc>;

export const VocInput = z.object({
  medical_institution_id: Id,
  title: z.string().trim().min(1, 'タイトルを入力してください').max(100, 'タイトルは100文字以内で入力してください'),
  /** Spec §5: a date only. */
  reported_date: inputDate('報告日はYYYY-MM-DD形式で入力してください'),
  status: VocStatus.default('NOT_STARTED'),
  priority: VocPriority.default('MIDDLE'),
  detail_text: z.string().max(5000, '内容は5000文字以内で入力してください').default(''),
  action_text: z.string().max(5000, '対応内容は5000文字以内で入力してください').default(''),
  user_id: Id.nullable().default(null),
  voc_group_id: Id.nullable().default(null),
  communication_ids: z.array(Id).max(100).default([]),
});
export type VocInput = z.infer<typeof VocInput>;

/** The whole list is replaced; a group left out is deleted, unless VOCs use it (422 naming it). */
export const VocGroupsInput = z.object({
  voc_groups: z
    .array(
      z.object({
        id: Id.optional(),
        name: z
          .string()
          .trim()
          .min(1, 'グループ名を入力してください')
          .max(50, 'グループ名は50文字以内で入力してください'),
      }),
    )
    .max(100, 'VOCグループは100件まで登録できます'),
});
export type VocGroupsInput = z.infer<typeof VocGroupsInput>;

/** A VOC as the list shows it: the spec's fields with the names it needs (an addition to the spec). */
export const VocListItem = Voc.extend({
  medical_institution: MedicalInstitutionRef,
  /** Null also when the group was deleted meanwhile. */
  voc_group: VocGroup.nullable(),
  /** The linked communications that still exist, newest first. */
  communications: z.array(z.object({ id: Id, communication_type: CommunicationType, acted_date: z.iso.date() })),
});
export type VocListItem = z.infer<typeof VocListItem>;

const vocConditions = {
  status: VocStatus.optional(),
  priority: VocPriority.optional(),
  voc_group_id: Id.optional(),
  medical_institution_id: Id.optional(),
  communication_id: Id.optional(),
  /** Period of `reported_date`, both ends included. */
  reported_from: inputDate('開始日はYYYY-MM-DD形式で入力してください').optional(),
  reported_to: inputDate('終了日はYYYY-MM-DD形式で入力してください').optional(),
  sort_by: z.enum(['reported_date', 'updated_at']).default('reported_date'),
  sort: SortDirection.default('desc'),
};
const periodInOrder = (q: { reported_from?: string | undefined; reported_to?: string | undefined }) =>
  !q.reported_from || !q.reported_to || q.reported_from <= q.reported_to;
const periodMessage = { message: '終了日は開始日以降の日付を指定してください', path: ['reported_to'] };

export const VocListQuery = PageQuery.extend(vocConditions).refine(periodInOrder, periodMessage);
export type VocListQuery = z.infer<typeof VocListQuery>;

export const VocExportQuery = z
  .object({ ...vocConditions, encoding: CsvEncoding.default('utf-8') })
  .refine(periodInOrder, periodMessage);
export type VocExportQuery = z.infer<typeof VocExportQuery>;

const v = { area: 'vocs', feature: 'communications', served: true } as const;

export const vocEndpoints = {
  listVocs: endpoint({
    ...v,
    id: 'vocs.list',
    method: 'GET',
    path: '/vocs',
    service: 'query',
    summary: 'VOC一覧（独自追加）',
    query: VocListQuery,
    response: paged(VocListItem),
    successStatus: 200,
  }),
  exportVocs: endpoint({
    ...v,
    id: 'vocs.export',
    method: 'GET',
    path: '/vocs/export',
    service: 'query',
    summary: 'VOC一覧のCSV出力（独自追加）',
    query: VocExportQuery,
    response: z.string(),
    successStatus: 200,
    download: true,
  }),
  createVoc: endpoint({
    ...v,
    id: 'vocs.create',
    method: 'POST',
    path: '/vocs',
    service: 'command',
    summary: 'VOC登録',
    body: VocInput,
    response: Voc,
    successStatus: 201,
  }),
  updateVoc: endpoint({
    ...v,
    id: 'vocs.update',
    method: 'PUT',
    path: '/vocs/{id}',
    service: 'command',
    summary: 'VOC更新',
    params: IdParams,
    body: VocInput,
    response: Voc,
    successStatus: 200,
  }),
  deleteVoc: endpoint({
    ...v,
    id: 'vocs.delete',
    method: 'DELETE',
    path: '/vocs/{id}',
    service: 'command',
    summary: 'VOC削除',
    params: IdParams,
    response: NoContent,
    successStatus: 204,
  }),
  listVocGroups: endpoint({
    ...v,
    id: 'vocs.listGroups',
    method: 'GET',
    path: '/voc_groups',
    service: 'query',
    summary: 'VOCグループ一覧（独自追加）',
    response: z.array(VocGroup),
    successStatus: 200,
  }),
  replaceVocGroups: endpoint({
    ...v,
    id: 'vocs.replaceGroups',
    method: 'PUT',
    path: '/voc_groups',
    service: 'command',
    summary: 'VOCグループの設定',
    body: VocGroupsInput,
    response: z.array(VocGroup),
    successStatus: 200,
    ownerOnly: true,
  }),
};
