import { z } from 'zod';
import { endpoint } from '../core/endpoint.ts';
import { Id, IdParams, IsoDate, IsoDateTime, NoContent, PageQuery, paged } from '../core/zod-helpers.ts';
import { CsvEncoding, Period, UserRef } from '../core/refs.ts';

/** The spec names a list status without values; decided in docs/decisions.md (Contracts). */
export const ActionListStatus = z.enum(['in_progress', 'completed']);
export type ActionListStatus = z.infer<typeof ActionListStatus>;

/** Spec §4. */
export const ActionListItemStatus = z.enum(['actioned', 'not_actioned']);
export type ActionListItemStatus = z.infer<typeof ActionListItemStatus>;

export const ActionList = z.object({
  id: Id,
  name: z.string(),
  status: ActionListStatus,
  medical_institution_count: z.number().int(),
  actioned_count: z.number().int(),
  created_by: UserRef.nullable(),
  created_at: IsoDateTime,
  version: z.number().int(),
});
export type ActionList = z.infer<typeof ActionList>;

export const ActionListItem = z.object({
  medical_institution: z.object({
    id: Id,
    name: z.string(),
    address: z.string(),
    tel: z.string().nullable(),
    running_status: z.enum(['open', 'closed', 'suspended', 'unknown']),
    /**
     * Addition to the spec: the partner search's figures (§3 medical institution) beside each item, so a
     * list of referrers to win back shows who stopped and when they were last visited. The counts and the
     * rate are null unless the query names the periods; the command service's answers leave them out.
     */
    referral_count: z.number().int().nullable().optional(),
    comparison_referral_count: z.number().int().nullable().optional(),
    rate_of_referral_change: z.number().nullable().optional(),
    last_visit_date: IsoDate.nullable().optional(),
  }),
  status: ActionListItemStatus,
  updated_by: UserRef.nullable(),
  updated_at: IsoDateTime,
});
export type ActionListItem = z.infer<typeof ActionListItem>;

const name = z
  .string()
  .trim()
  .min(1, 'アクションリスト名を入力してください')
  .max(100, 'アクションリスト名は100文字以内で入力してください');
const institutionIds = z
  .array(Id)
  .min(1, '医療機関を1件以上選択してください')
  .max(10000, '医療機関は一度に10000件まで指定できます');

export const ActionListCreateInput = z.object({
  name,
  medical_institution_ids: z.array(Id).max(10000, '医療機関は一度に10000件まで指定できます').default([]),
});
export type ActionListCreateInput = z.infer<typeof ActionListCreateInput>;

export const ActionListUpdateInput = z.object({ name });
export const ActionListStatusInput = z.object({ status: ActionListStatus });
const itemFilter = z.enum(['all', 'actioned', 'not_actioned']).default('all');
/**
 * Addition to the spec (§7 names page, per_page and status): the periods of the items' referral figures,
 * as the partner search sends them (bracket keys: `referral_period[from]=…`).
 */
const itemReferralPeriods = {
  referral_period: Period.optional(),
  comparison_referral_period: Period.optional(),
};
export const ActionListItemsQuery = PageQuery.extend({ status: itemFilter, ...itemReferralPeriods });
export type ActionListItemsQuery = z.infer<typeof ActionListItemsQuery>;
/** Every item of the filter (all pages) as CSV. */
export const ActionListItemsExportQuery = z.object({
  status: itemFilter,
  encoding: CsvEncoding.default('utf-8'),
  ...itemReferralPeriods,
});
export type ActionListItemsExportQuery = z.infer<typeof ActionListItemsExportQuery>;
export const ActionListItemInput = z.object({ medical_institution_id: Id });
export const ActionListItemsInput = z.object({ medical_institution_ids: institutionIds });
export const ActionListItemsStatusInput = z.object({
  medical_institution_ids: institutionIds,
  status: ActionListItemStatus,
});
/** How many institutions a bulk call changed (already present or absent ones are not counted). */
export const BulkResult = z.object({ count: z.number().int() });
export type BulkResult = z.infer<typeof BulkResult>;

const a = { area: 'action-lists', feature: 'action_lists', served: true } as const;

export const actionListEndpoints = {
  listActionLists: endpoint({
    ...a,
    id: 'actionLists.list',
    method: 'GET',
    path: '/action_lists',
    service: 'query',
    summary: 'アクションリスト一覧',
    query: PageQuery,
    response: paged(ActionList),
    successStatus: 200,
  }),
  /** Addition (spec §7 lists action lists only as a page): one list, for the screen that shows its institutions. */
  getActionList: endpoint({
    ...a,
    id: 'actionLists.get',
    method: 'GET',
    path: '/action_lists/{id}',
    service: 'query',
    summary: 'アクションリスト詳細（独自追加）',
    params: IdParams,
    response: ActionList,
    successStatus: 200,
  }),
  createActionList: endpoint({
    ...a,
    id: 'actionLists.create',
    method: 'POST',
    path: '/action_lists',
    service: 'command',
    summary: 'アクションリスト作成',
    body: ActionListCreateInput,
    response: ActionList,
    successStatus: 201,
  }),
  updateActionList: endpoint({
    ...a,
    id: 'actionLists.update',
    method: 'PUT',
    path: '/action_lists/{id}',
    service: 'command',
    summary: 'アクションリスト名の変更',
    params: IdParams,
    body: ActionListUpdateInput,
    response: ActionList,
    successStatus: 200,
  }),
  deleteActionList: endpoint({
    ...a,
    id: 'actionLists.delete',
    method: 'DELETE',
    path: '/action_lists/{id}',
    service: 'command',
    summary: 'アクションリスト削除',
    params: IdParams,
    response: NoContent,
    successStatus: 204,
  }),
  updateActionListStatus: endpoint({
    ...a,
    id: 'actionLists.updateStatus',
    method: 'PUT',
    path: '/action_lists/{id}/status',
    service: 'command',
    summary: 'アクションリストのステータス変更',
    params: IdParams,
    body: ActionListStatusInput,
    response: ActionList,
    successStatus: 200,
  }),
  listItems: endpoint({
    ...a,
    id: 'actionLists.listItems',
    method: 'GET',
    path: '/action_lists/{id}/medical_institutions',
    service: 'query',
    summary: 'アクションリストの医療機関一覧',
    params: IdParams,
    query: ActionListItemsQuery,
    response: paged(ActionListItem),
    successStatus: 200,
  }),
  exportItems: endpoint({
    ...a,
    id: 'actionLists.exportItems',
    method: 'GET',
    path: '/action_lists/{id}/medical_institutions/export',
    service: 'query',
    summary: 'アクションリストの医療機関のCSV出力（独自追加）',
    params: IdParams,
    query: ActionListItemsExportQuery,
    response: z.string(),
    successStatus: 200,
    download: true,
  }),
  addItem: endpoint({
    ...a,
    id: 'actionLists.addItem',
    method: 'POST',
    path: '/action_lists/{id}/medical_institutions',
    service: 'command',
    summary: 'アクションリストへの医療機関追加',
    params: IdParams,
    body: ActionListItemInput,
    response: ActionListItem,
    successStatus: 201,
  }),
  bulkDeleteItems: endpoint({
    ...a,
    id: 'actionLists.bulkDeleteItems',
    method: 'POST',
    path: '/action_lists/{id}/medical_institutions/bulk_delete',
    service: 'command',
    summary: 'アクションリストから医療機関を一括削除',
    params: IdParams,
    body: ActionListItemsInput,
    response: BulkResult,
    successStatus: 200,
  }),
  bulkInsertItems: endpoint({
    ...a,
    id: 'actionLists.bulkInsertItems',
    method: 'POST',
    path: '/action_lists/{id}/medical_institutions/bulk_insert',
    service: 'command',
    summary: 'アクションリストへ医療機関を一括追加',
    params: IdParams,
    body: ActionListItemsInput,
    response: BulkResult,
    successStatus: 200,
  }),
  updateItemsStatus: endpoint({
    ...a,
    id: 'actionLists.updateItemsStatus',
    method: 'PUT',
    path: '/action_lists/{id}/medical_institutions/status',
    service: 'command',
    summary: '医療機関ごとの対応ステータス変更',
    params: IdParams,
    body: ActionListItemsStatusInput,
    response: BulkResult,
    successStatus: 200,
    // A set of statuses: sent again it changes nothing, and colleagues marking other items of the
    // same list must not make each other reload.
    versionGuarded: false,
  }),
};
