import { z } from 'zod';
import { endpoint } from '../core/endpoint.ts';
import {
  Id,
  IdParams,
  PageQuery,
  SortDirection,
  paged,
  IsoDateTime,
  queryInt,
  inputDate,
} from '../core/zod-helpers.ts';
import { CsvEncoding, MasterCode, Period, PrefectureCode, UserRef } from '../core/refs.ts';
import { Department, FacilityType } from '../reference-data/reference-data.schemas.ts';
import { LabelValue, LabelValueInput } from '../labels/label.schemas.ts';
import { ActionListItemStatus, ActionListStatus } from '../action-lists/action-list.schemas.ts';

/** Spec §4. */
export const RunningStatus = z.enum(['open', 'closed', 'suspended', 'unknown']);
export type RunningStatus = z.infer<typeof RunningStatus>;

export const TagRef = z.object({ id: Id, name: z.string() });
export type TagRef = z.infer<typeof TagRef>;

/** 医療機関コード: 10 digits, the last a check digit (domain research §2.6). */
export const MedicalInstitutionCode = z.string().regex(/^\d{10}$/, '医療機関コードは10桁の数字です');

export const MedicalInstitutionPhase = z.object({
  medical_institution_id: Id,
  phase_master_id: Id.nullable(),
  phase_name: z.string().nullable(),
  changed_user: UserRef.nullable(),
  changed_at: IsoDateTime.nullable(),
});
export type MedicalInstitutionPhase = z.infer<typeof MedicalInstitutionPhase>;

/**
 * One institution as the search lists it: master facts plus this tenant's CRM data. Referral and visit
 * figures are null until the referral and communication read models provide them.
 */
export const MedicalInstitution = z.object({
  id: Id,
  code: z.string(),
  name: z.string(),
  kana: z.string(),
  running_status: RunningStatus,
  /** The master's raw 状態 text (e.g. 現存, 休止); running_status is its normalised form. */
  status: z.string().nullable(),
  postal_code: z.string().nullable(),
  prefecture: PrefectureCode.nullable(),
  city: z.string().nullable(),
  address: z.string(),
  tel: z.string().nullable(),
  administrator_name: z.string().nullable(),
  founder_name: z.string().nullable(),
  longitude: z.number().nullable(),
  latitude: z.number().nullable(),
  facility_type: FacilityType.nullable(),
  bed_count: z.number().int().nullable(),
  departments: z.array(Department),
  tags: z.array(TagRef),
  phase: MedicalInstitutionPhase.nullable(),
  referral_count: z.number().int().nullable(),
  comparison_referral_count: z.number().int().nullable(),
  /** (referral_count − comparison_referral_count) / comparison_referral_count; null when undefined. */
  rate_of_referral_change: z.number().nullable(),
  last_visit_date: z.iso.date().nullable(),
  memo_content: z.string().nullable(),
  special_note_content: z.string().nullable(),
});
export type MedicalInstitution = z.infer<typeof MedicalInstitution>;

/** Spec §9 tag search condition and filter group logic. */
export const TagSearchCondition = z.enum(['include', 'exclude']);
export const FilterGroupLogic = z.enum(['and', 'or', 'nand', 'nor']);

/**
 * A group matches when its tags satisfy `logic` (and: all, or: any, nand: not all, nor: none);
 * `include` keeps institutions the group matches, `exclude` those it does not. Groups combine with AND.
 */
export const TagFilterGroup = z.object({
  search_condition: TagSearchCondition.default('include'),
  logic: FilterGroupLogic.default('or'),
  tag_ids: z.array(Id).min(1, 'タグを1件以上選択してください').max(100, 'タグは100件まで指定できます'),
});
export type TagFilterGroup = z.infer<typeof TagFilterGroup>;

/**
 * A condition on one institution label; the fields used depend on the label's component type.
 * `is_empty: true` finds institutions without a value for the label.
 */
/** An integer label's bound: the values are Postgres `int`, so a bound past them is a typo, not a filter. */
const labelIntegerBound = z
  .number({ error: '整数を入力してください' })
  .int('整数を入力してください')
  .min(-2147483648, '-2147483648以上の整数を入力してください')
  .max(2147483647, '2147483647以下の整数を入力してください');

export const LabelFilter = z.object({
  label_id: Id,
  text: z.string().trim().max(100, 'ラベルの検索文字列は100文字以内で入力してください').optional(),
  integer_min: labelIntegerBound.optional(),
  integer_max: labelIntegerBound.optional(),
  date_from: inputDate('日付はYYYY-MM-DD形式で入力してください').optional(),
  date_to: inputDate('日付はYYYY-MM-DD形式で入力してください').optional(),
  selection_ids: z.array(Id).max(100).optional(),
  own_department_ids: z.array(Id).max(100).optional(),
  area_ids: z.array(Id).max(100).optional(),
  is_empty: z.boolean().optional(),
});
export type LabelFilter = z.infer<typeof LabelFilter>;

const keyword = z.string().trim().max(100, 'キーワードは100文字以内で入力してください');

/** The filters of partner management (issue 4 §2); every filter narrows (AND). */
export const MedicalInstitutionSearchConditions = z.object({
  /** Over name, kana, address and code; 全角/半角, ひらがな/カタカナ and legal-entity prefixes are normalised. */
  keyword: keyword.optional(),
  prefectures: z.array(PrefectureCode).max(47).optional(),
  cities: z.array(z.string().trim().min(1).max(50, '市区町村は50文字以内で入力してください')).max(200).optional(),
  /** Areas of institution labels of type `area`. */
  area_ids: z.array(Id).max(100).optional(),
  facility_type_ids: z.array(MasterCode).max(100).optional(),
  department_ids: z.array(MasterCode).max(200).optional(),
  tag_filter_groups: z.array(TagFilterGroup).max(10, 'タグの条件は10グループまで指定できます').optional(),
  phase_master_ids: z.array(Id).max(50).optional(),
  /** Together with phase_master_ids: also institutions without a phase. */
  include_no_phase: z.boolean().optional(),
  running_statuses: z.array(RunningStatus).optional(),
  label_filters: z.array(LabelFilter).max(20, 'ラベルの条件は20件まで指定できます').optional(),
  /** Institutions this tenant visited (visit or new_visit) at least once within the period (an addition to the spec). */
  visited_period: Period.optional(),
  /** Institutions this tenant has not visited on or after this day, never-visited ones included (an addition to the spec). */
  not_visited_since: inputDate('日付はYYYY-MM-DD形式で入力してください').optional(),
});
export type MedicalInstitutionSearchConditions = z.infer<typeof MedicalInstitutionSearchConditions>;

const referralCountBound = z
  .number({ error: '件数は数値で入力してください' })
  .int('件数は整数で入力してください')
  .min(0, '件数は0以上で入力してください')
  .max(1_000_000_000, '件数は1000000000以下で入力してください');
const referralRateBound = z
  .number({ error: '増減率は数値で入力してください' })
  // A count cannot fall by more than all of it.
  .min(-100, '増減率は-100%以上で入力してください')
  .max(1_000_000_000, '増減率は1000000000%以下で入力してください');

/**
 * Ranges over the figures of the requested periods (an addition to the spec): referral_count needs referral_period,
 * comparison_referral_count comparison_referral_period, rate_of_referral_change (in percent, as the
 * column shows it) both. A rate bound keeps only rows that have a rate: a comparison count of 0 leaves
 * it undefined (shown blank), so such rows never match a rate filter.
 */
export const ReferralFigureFilters = z.object({
  min_referral_count: referralCountBound.optional(),
  max_referral_count: referralCountBound.optional(),
  min_comparison_referral_count: referralCountBound.optional(),
  max_comparison_referral_count: referralCountBound.optional(),
  min_rate_of_referral_change: referralRateBound.optional(),
  max_rate_of_referral_change: referralRateBound.optional(),
});
export type ReferralFigureFilters = z.infer<typeof ReferralFigureFilters>;

const referralFigureRanges = [
  {
    figure: 'referral_count',
    label: '紹介数',
    periods: ['referral_period'],
    periodMessage: '紹介数で絞り込むには紹介期間（referral_period）を指定してください',
  },
  {
    figure: 'comparison_referral_count',
    label: '比較期間の紹介数',
    periods: ['comparison_referral_period'],
    periodMessage: '比較期間の紹介数で絞り込むには比較期間（comparison_referral_period）を指定してください',
  },
  {
    figure: 'rate_of_referral_change',
    label: '紹介増減率',
    periods: ['referral_period', 'comparison_referral_period'],
    periodMessage:
      '紹介増減率で絞り込むには紹介期間（referral_period）と比較期間（comparison_referral_period）を指定してください',
  },
] as const;

/** Each range's minimum at most its maximum, and the periods its figure needs sent with it. */
function checkReferralFigureFilters(
  v: ReferralFigureFilters & { referral_period?: Period | undefined; comparison_referral_period?: Period | undefined },
  ctx: z.RefinementCtx,
) {
  for (const range of referralFigureRanges) {
    const [minKey, maxKey] = [`min_${range.figure}`, `max_${range.figure}`] as const;
    const [min, max] = [v[minKey], v[maxKey]];
    if (min !== undefined && max !== undefined && min > max)
      ctx.addIssue({
        code: 'custom',
        path: [maxKey],
        message: `${range.label}の上限は下限以上の値を指定してください`,
      });
    if (min === undefined && max === undefined) continue;
    if (range.periods.some((p) => !v[p]))
      for (const key of [minKey, maxKey])
        if (v[key] !== undefined) ctx.addIssue({ code: 'custom', path: [key], message: range.periodMessage });
  }
}

export const MedicalInstitutionSortKey = z.enum([
  'name',
  'kana',
  'code',
  'address',
  'running_status',
  'phase',
  'referral_count',
  'comparison_referral_count',
  'rate_of_referral_change',
  'last_visit_date',
]);
export type MedicalInstitutionSortKey = z.infer<typeof MedicalInstitutionSortKey>;

export const MedicalInstitutionSearchBody = MedicalInstitutionSearchConditions.extend({
  /** Period whose referrals fill referral_count; the comparison period fills comparison_referral_count. */
  referral_period: Period.optional(),
  comparison_referral_period: Period.optional(),
  sort_by: MedicalInstitutionSortKey.default('kana'),
  sort: SortDirection.default('asc'),
})
  .extend(ReferralFigureFilters.shape)
  .extend(PageQuery.shape)
  .superRefine(checkReferralFigureFilters);
export type MedicalInstitutionSearchBody = z.infer<typeof MedicalInstitutionSearchBody>;

/** Columns of the CSV export, in the order given. */
export const MedicalInstitutionExportColumn = z.enum([
  'code',
  'name',
  'kana',
  'running_status',
  'postal_code',
  'address',
  'tel',
  'administrator_name',
  'facility_type',
  'bed_count',
  'departments',
  'tags',
  'phase',
  'referral_count',
  'comparison_referral_count',
  'rate_of_referral_change',
  'last_visit_date',
  'memo_content',
  'special_note_content',
]);
export type MedicalInstitutionExportColumn = z.infer<typeof MedicalInstitutionExportColumn>;

export const MedicalInstitutionExportBody = MedicalInstitutionSearchConditions.extend({
  referral_period: Period.optional(),
  comparison_referral_period: Period.optional(),
  sort_by: MedicalInstitutionSortKey.default('kana'),
  sort: SortDirection.default('asc'),
  encoding: CsvEncoding.default('utf-8'),
  columns: z.array(MedicalInstitutionExportColumn).min(1, '出力する列を1つ以上選択してください').optional(),
})
  .extend(ReferralFigureFilters.shape)
  .superRefine(checkReferralFigureFilters);
export type MedicalInstitutionExportBody = z.infer<typeof MedicalInstitutionExportBody>;

/** A text kept per tenant and institution with who and when last changed it (memo, special note). */
export const MedicalInstitutionNote = z.object({
  medical_institution_id: Id,
  content: z.string(),
  updated_by: UserRef.nullable(),
  updated_at: IsoDateTime.nullable(),
  /** Stream revision; sent back as If-Match. 0 while nothing was written. */
  version: z.number().int(),
});
export type MedicalInstitutionNote = z.infer<typeof MedicalInstitutionNote>;

export const MemoInput = z.object({
  content: z.string().max(10000, 'メモは10000文字以内で入力してください'),
});
export type MemoInput = z.infer<typeof MemoInput>;

export const SpecialNoteInput = z.object({
  content: z.string().max(2000, '特記事項は2000文字以内で入力してください'),
});
export type SpecialNoteInput = z.infer<typeof SpecialNoteInput>;

export const PhaseInput = z.object({ phase_master_id: Id.nullable() });
export type PhaseInput = z.infer<typeof PhaseInput>;

export const MedicalInstitutionTagsInput = z.object({
  tag_ids: z
    .array(Id)
    .max(100, 'タグは100件まで設定できます')
    .refine((ids) => new Set(ids).size === ids.length, '同じタグが重複しています'),
});
export type MedicalInstitutionTagsInput = z.infer<typeof MedicalInstitutionTagsInput>;

export const MedicalInstitutionIdParams = z.object({ medical_institution_id: Id });

export const MedicalInstitutionLabelValuesInput = z.object({
  /** Values for the labels given; a label given with every field empty loses its value. Others are kept. */
  label_values: z.array(LabelValueInput).max(100, 'ラベルは100件まで一度に設定できます'),
});
export type MedicalInstitutionLabelValuesInput = z.infer<typeof MedicalInstitutionLabelValuesInput>;

/** The CRM page header: facts, CRM data and the figures later modules add. */
export const MedicalInstitutionSummary = MedicalInstitution.extend({
  group_medical_institution: z.boolean(),
  doctor_count: z.number().int(),
  communication_count: z.number().int().nullable(),
  open_task_count: z.number().int().nullable(),
  memo: MedicalInstitutionNote,
  special_note: MedicalInstitutionNote,
  label_values: z.array(LabelValue),
});
export type MedicalInstitutionSummary = z.infer<typeof MedicalInstitutionSummary>;

/** Referral admission segment of the institution, per own department (null: all departments). */
export const MedicalInstitutionSegment = z.object({
  own_department_id: Id.nullable(),
  segment_id: Id.nullable(),
  segment_label: z.string(),
  referral_count: z.number().int(),
  referral_admission_rate: z.number().nullable(),
});
export type MedicalInstitutionSegment = z.infer<typeof MedicalInstitutionSegment>;

export const MedicalInstitutionActionList = z.object({
  id: Id,
  name: z.string(),
  status: ActionListStatus,
  item_status: ActionListItemStatus,
});
export type MedicalInstitutionActionList = z.infer<typeof MedicalInstitutionActionList>;

export const MedicalInstitutionHistoryKind = z.enum([
  'memo_changed',
  'special_note_changed',
  'phase_changed',
  'tags_changed',
  'doctor_added',
  'doctor_changed',
  'doctor_removed',
  'label_values_changed',
]);
export type MedicalInstitutionHistoryKind = z.infer<typeof MedicalInstitutionHistoryKind>;

/** One change this tenant made, read from the events (newest first). */
export const MedicalInstitutionHistory = z.object({
  id: Id,
  kind: MedicalInstitutionHistoryKind,
  occurred_at: IsoDateTime,
  user: UserRef.nullable(),
  /** Japanese one-line description, e.g. 「フェーズを「訪問済」に変更」. */
  summary: z.string(),
  changes: z.array(
    z.object({
      field: z.string(),
      /** Japanese field name as shown. */
      label: z.string(),
      before: z.string().nullable(),
      after: z.string().nullable(),
    }),
  ),
});
export type MedicalInstitutionHistory = z.infer<typeof MedicalInstitutionHistory>;

export const SalesMapBounds = z
  .object({
    north: z.number().min(-90).max(90),
    south: z.number().min(-90).max(90),
    east: z.number().min(-180).max(180),
    west: z.number().min(-180).max(180),
  })
  .refine((b) => b.south <= b.north, { message: '表示範囲が正しくありません', path: ['south'] });

/** Spec §9 visit filter. */
export const VisitFilter = z.enum(['first_visit', 'return_visit', 'all']);

export const SalesMapSearchBody = z
  .object({
    referral_settings: z
      .object({
        period: Period,
        own_department_ids: z.array(Id).max(200).optional(),
        min_referral_count: z.number().int().min(0).optional(),
        max_referral_count: z.number().int().min(0).optional(),
      })
      .optional(),
    bounds: SalesMapBounds.optional(),
    facility_type_ids: z.array(MasterCode).max(100).optional(),
    department_ids: z.array(MasterCode).max(200).optional(),
    visits: z.object({ period: Period.optional(), visit: VisitFilter.default('all') }).optional(),
    tag_ids: z.array(Id).max(100).optional(),
    labels: z.array(LabelFilter).max(20).optional(),
  })
  // A map shows many pins at once, so its page is larger than a list's.
  .extend({ page: PageQuery.shape.page, per_page: queryInt({ min: 1, max: 1000 }).default(500) });
export type SalesMapSearchBody = z.infer<typeof SalesMapSearchBody>;

export const SalesMapMedicalInstitution = z.object({
  id: Id,
  name: z.string(),
  address: z.string(),
  latitude: z.number(),
  longitude: z.number(),
  running_status: RunningStatus,
  facility_type: FacilityType.nullable(),
  tags: z.array(TagRef),
  referral_count: z.number().int().nullable(),
  last_visit_date: z.iso.date().nullable(),
  visit_count: z.number().int().nullable(),
});
export type SalesMapMedicalInstitution = z.infer<typeof SalesMapMedicalInstitution>;

export const SearchForLabelsBody = MedicalInstitutionSearchConditions.extend({
  /** Labels whose values each row carries; all labels when absent. */
  label_ids: z.array(Id).max(100).optional(),
}).extend(PageQuery.shape);
export type SearchForLabelsBody = z.infer<typeof SearchForLabelsBody>;

export const MedicalInstitutionWithLabelValues = z.object({
  id: Id,
  code: z.string(),
  name: z.string(),
  address: z.string(),
  label_values: z.array(LabelValue),
});
export type MedicalInstitutionWithLabelValues = z.infer<typeof MedicalInstitutionWithLabelValues>;

const mi = { area: 'medical-institutions', feature: 'medical_institutions_search', served: false } as const;

export const medicalInstitutionEndpoints = {
  searchMedicalInstitutions: endpoint({
    ...mi,
    id: 'medicalInstitutions.search',
    served: true,
    method: 'POST',
    path: '/medical_institutions/search_results',
    service: 'query',
    summary: '医療機関検索',
    body: MedicalInstitutionSearchBody,
    response: paged(MedicalInstitution),
    successStatus: 200,
  }),
  exportMedicalInstitutions: endpoint({
    ...mi,
    id: 'medicalInstitutions.export',
    served: true,
    method: 'POST',
    path: '/medical_institutions/search_results/export',
    service: 'query',
    summary: '医療機関検索結果のCSV出力（独自追加）',
    body: MedicalInstitutionExportBody,
    response: z.string(),
    successStatus: 200,
    download: true,
  }),
  searchForSalesMap: endpoint({
    ...mi,
    id: 'medicalInstitutions.searchForSalesMap',
    served: true,
    method: 'POST',
    path: '/medical_institutions/search_for_sales_map_results',
    service: 'query',
    summary: '営業マップの医療機関検索',
    body: SalesMapSearchBody,
    response: paged(SalesMapMedicalInstitution),
    successStatus: 200,
    feature: 'sale_map',
  }),
  searchForLabels: endpoint({
    ...mi,
    id: 'medicalInstitutions.searchForLabels',
    served: true,
    method: 'POST',
    path: '/medical_institutions/search_for_labels',
    service: 'query',
    summary: '医療機関ラベル値の一覧検索',
    body: SearchForLabelsBody,
    response: paged(MedicalInstitutionWithLabelValues),
    successStatus: 200,
    feature: 'medical_institution_labels',
  }),
  getSummary: endpoint({
    ...mi,
    id: 'medicalInstitutions.getSummary',
    served: true,
    method: 'GET',
    path: '/medical_institutions/{id}/summary',
    service: 'query',
    summary: '医療機関の概要',
    params: IdParams,
    response: MedicalInstitutionSummary,
    successStatus: 200,
  }),
  getMemo: endpoint({
    ...mi,
    id: 'medicalInstitutions.getMemo',
    served: true,
    method: 'GET',
    path: '/medical_institutions/{id}/memo',
    service: 'query',
    summary: '医療機関メモの取得',
    params: IdParams,
    response: MedicalInstitutionNote,
    successStatus: 200,
  }),
  updateMemo: endpoint({
    ...mi,
    id: 'medicalInstitutions.updateMemo',
    served: true,
    method: 'PUT',
    path: '/medical_institutions/{id}/memo',
    service: 'command',
    summary: '医療機関メモの更新',
    params: IdParams,
    body: MemoInput,
    response: MedicalInstitutionNote,
    successStatus: 200,
  }),
  updateSpecialNote: endpoint({
    ...mi,
    id: 'medicalInstitutions.updateSpecialNote',
    served: true,
    method: 'PUT',
    path: '/medical_institutions/{id}/special_note',
    service: 'command',
    summary: '特記事項の更新',
    params: IdParams,
    body: SpecialNoteInput,
    response: MedicalInstitutionNote,
    successStatus: 200,
  }),
  updatePhase: endpoint({
    ...mi,
    id: 'medicalInstitutions.updatePhase',
    served: true,
    method: 'PUT',
    path: '/medical_institutions/{id}/phase',
    service: 'command',
    summary: 'フェーズの変更',
    params: IdParams,
    body: PhaseInput,
    response: MedicalInstitutionPhase,
    successStatus: 200,
  }),
  getTags: endpoint({
    ...mi,
    id: 'medicalInstitutions.getTags',
    served: true,
    method: 'GET',
    path: '/medical_institutions/{id}/tags',
    service: 'query',
    summary: '医療機関のタグ一覧',
    params: IdParams,
    response: z.array(TagRef),
    successStatus: 200,
  }),
  updateTags: endpoint({
    ...mi,
    id: 'medicalInstitutions.updateTags',
    served: true,
    method: 'PUT',
    path: '/medical_institutions/{id}/tags',
    service: 'command',
    summary: '医療機関のタグ設定',
    params: IdParams,
    body: MedicalInstitutionTagsInput,
    response: z.array(TagRef),
    successStatus: 200,
  }),
  getLabelValues: endpoint({
    ...mi,
    id: 'medicalInstitutions.getLabelValues',
    served: true,
    method: 'GET',
    path: '/medical_institutions/{medical_institution_id}/label_values',
    service: 'query',
    summary: '医療機関ラベル値の取得',
    params: MedicalInstitutionIdParams,
    response: z.array(LabelValue),
    successStatus: 200,
    feature: 'medical_institution_labels',
  }),
  updateLabelValues: endpoint({
    ...mi,
    id: 'medicalInstitutions.updateLabelValues',
    served: true,
    method: 'POST',
    path: '/medical_institutions/{medical_institution_id}/label_values',
    service: 'command',
    summary: '医療機関ラベル値の設定',
    params: MedicalInstitutionIdParams,
    body: MedicalInstitutionLabelValuesInput,
    response: z.array(LabelValue),
    successStatus: 200,
    feature: 'medical_institution_labels',
  }),
  getSegments: endpoint({
    ...mi,
    id: 'medicalInstitutions.getSegments',
    served: true,
    method: 'GET',
    path: '/medical_institutions/{id}/segments',
    service: 'query',
    summary: '医療機関の紹介入院セグメント',
    params: IdParams,
    response: z.array(MedicalInstitutionSegment),
    successStatus: 200,
  }),
  getActionLists: endpoint({
    ...mi,
    id: 'medicalInstitutions.getActionLists',
    served: true,
    method: 'GET',
    path: '/medical_institutions/{id}/action_lists',
    service: 'query',
    summary: '医療機関を含むアクションリスト',
    params: IdParams,
    response: z.array(MedicalInstitutionActionList),
    successStatus: 200,
    feature: 'action_lists',
  }),
  getHistories: endpoint({
    ...mi,
    id: 'medicalInstitutions.getHistories',
    served: true,
    method: 'GET',
    path: '/medical_institutions/{id}/histories',
    service: 'query',
    summary: '医療機関の変更履歴（独自追加）',
    params: IdParams,
    query: PageQuery,
    response: paged(MedicalInstitutionHistory),
    successStatus: 200,
  }),
};
