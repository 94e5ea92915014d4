import { z } from 'zod';
import { endpoint } from '../core/endpoint.ts';
import { Id, IdParams, IsoDateTime, NoContent, inputDate } from '../core/zod-helpers.ts';
import { UserRef } from '../core/refs.ts';

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

const v = { area: 'vocs', feature: 'communications', served: true } as const;

export const vocEndpoints = {
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
    served: false,
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
