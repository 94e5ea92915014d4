import {
  FilterGroupLogic,
  Id,
  LabelFilter,
  MedicalInstitutionSortKey,
  PrefectureCode,
  RunningStatus,
  TagSearchCondition,
  type MedicalInstitutionExportColumn,
  type MedicalInstitutionSearchBody,
  type MedicalInstitutionSearchConditions,
} from '@renkei/contracts';
import { z } from 'zod';

/** Columns the result table can show; the first ones are shown until the user chooses. */
export const institutionColumnKeys = [
  'name',
  'address',
  'running_status',
  'facility_type',
  'tags',
  'phase',
  'referral_count',
  'rate_of_referral_change',
  'last_visit_date',
  'code',
  'kana',
  'tel',
  'departments',
  'comparison_referral_count',
] as const;
export const InstitutionColumnKey = z.enum(institutionColumnKeys);
export type InstitutionColumnKey = z.infer<typeof InstitutionColumnKey>;
export const defaultColumns: InstitutionColumnKey[] = [
  'name',
  'address',
  'running_status',
  'facility_type',
  'tags',
  'phase',
  'referral_count',
  'last_visit_date',
];

export const perPageChoices = [20, 50, 100] as const;

// A link written by hand or by an older build must still open: every bad piece falls back alone.
const optionalList = <T extends z.ZodType>(item: T) => z.array(item).min(1).optional().catch(undefined);

export const TagGroupState = z.object({
  search_condition: TagSearchCondition.catch('include'),
  logic: FilterGroupLogic.catch('or'),
  tag_ids: z.array(Id).max(100),
});
export type TagGroupState = z.infer<typeof TagGroupState>;

/** Everything partner management shows, as kept in the URL: a shared link reproduces the view. */
export const InstitutionSearchState = z.object({
  keyword: z.string().trim().max(100).optional().catch(undefined),
  prefectures: optionalList(PrefectureCode),
  cities: optionalList(z.string().trim().min(1).max(50)),
  area_ids: optionalList(Id),
  facility_type_ids: optionalList(z.string().min(1).max(20)),
  department_ids: optionalList(z.string().min(1).max(20)),
  tag_groups: z.array(TagGroupState).max(10).optional().catch(undefined),
  phase_master_ids: optionalList(Id),
  include_no_phase: z.boolean().optional().catch(undefined),
  running_statuses: optionalList(RunningStatus),
  label_filters: z.array(LabelFilter).max(20).optional().catch(undefined),
  sort_by: MedicalInstitutionSortKey.catch('kana').default('kana'),
  sort: z.enum(['asc', 'desc']).catch('asc').default('asc'),
  page: z.coerce.number().int().min(1).catch(1).default(1),
  per_page: z.coerce
    .number()
    .refine((n) => (perPageChoices as readonly number[]).includes(n))
    .catch(20)
    .default(20),
  columns: z.array(InstitutionColumnKey).min(1).optional().catch(undefined),
});
export type InstitutionSearchState = z.output<typeof InstitutionSearchState>;

export const emptySearchState: InstitutionSearchState = InstitutionSearchState.parse({});

/** The filter part of the state; changing any of it starts again from page 1. */
export type InstitutionFilters = Omit<InstitutionSearchState, 'sort_by' | 'sort' | 'page' | 'per_page' | 'columns'>;

export function filtersOf(state: InstitutionSearchState): InstitutionFilters {
  const { sort_by: _s, sort: _d, page: _p, per_page: _pp, columns: _c, ...filters } = state;
  return filters;
}

export function activeFilterCount(state: InstitutionSearchState): number {
  return Object.values(filtersOf(state)).filter(
    (v) => v !== undefined && v !== '' && v !== false && !(Array.isArray(v) && v.length === 0),
  ).length;
}

/** The conditions the search and export endpoints take, without empty pieces. */
export function toConditions(state: InstitutionSearchState): MedicalInstitutionSearchConditions {
  const out: MedicalInstitutionSearchConditions = {};
  const keyword = state.keyword?.trim();
  if (keyword) out.keyword = keyword;
  if (state.prefectures?.length) out.prefectures = state.prefectures;
  if (state.cities?.length) out.cities = state.cities;
  if (state.area_ids?.length) out.area_ids = state.area_ids;
  if (state.facility_type_ids?.length) out.facility_type_ids = state.facility_type_ids;
  if (state.department_ids?.length) out.department_ids = state.department_ids;
  const groups = state.tag_groups?.filter((g) => g.tag_ids.length > 0);
  if (groups?.length) out.tag_filter_groups = groups;
  if (state.phase_master_ids?.length) {
    out.phase_master_ids = state.phase_master_ids;
    if (state.include_no_phase) out.include_no_phase = true;
  }
  if (state.running_statuses?.length) out.running_statuses = state.running_statuses;
  if (state.label_filters?.length) out.label_filters = state.label_filters;
  return out;
}

export function toSearchBody(state: InstitutionSearchState): MedicalInstitutionSearchBody {
  return {
    ...toConditions(state),
    sort_by: state.sort_by,
    sort: state.sort,
    page: state.page,
    per_page: state.per_page,
  };
}

const exportColumnOf: Record<InstitutionColumnKey, MedicalInstitutionExportColumn> = {
  name: 'name',
  address: 'address',
  running_status: 'running_status',
  facility_type: 'facility_type',
  tags: 'tags',
  phase: 'phase',
  referral_count: 'referral_count',
  rate_of_referral_change: 'rate_of_referral_change',
  last_visit_date: 'last_visit_date',
  code: 'code',
  kana: 'kana',
  tel: 'tel',
  departments: 'departments',
  comparison_referral_count: 'comparison_referral_count',
};

/** The CSV carries the code first (to match rows back to the master), then the columns on screen. */
export function exportColumnsOf(columns: readonly InstitutionColumnKey[]): MedicalInstitutionExportColumn[] {
  const out: MedicalInstitutionExportColumn[] = ['code'];
  for (const c of columns) if (!out.includes(exportColumnOf[c])) out.push(exportColumnOf[c]);
  return out;
}

/** Drops defaults so the URL stays short and the same view has one address. */
export function compactState(state: InstitutionSearchState): Partial<InstitutionSearchState> {
  const out: Partial<InstitutionSearchState> = {};
  for (const [key, value] of Object.entries(state) as [keyof InstitutionSearchState, unknown][]) {
    if (value === undefined || value === '' || (Array.isArray(value) && value.length === 0)) continue;
    if (value === emptySearchState[key]) continue;
    (out as Record<string, unknown>)[key] = value;
  }
  return out;
}
