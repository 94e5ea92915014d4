import type {
  LabelFilter,
  MedicalInstitutionExportColumn,
  MedicalInstitutionSearchBody,
  MedicalInstitutionSearchConditions,
  MedicalInstitutionSortKey,
  PrefectureCode,
  ReferralFigureFilters,
  RunningStatus,
} from '@renkei/contracts';
import {
  enumParam,
  intParam,
  isCalendarDay,
  isRecord,
  isUuid,
  listParam,
  trimmedString,
  type SearchInput,
} from '../../app/search-params.ts';
import {
  comparisonOf,
  fiscalYearOf,
  fiscalYearPeriod,
  todayInJapan,
  type Period,
} from '../data-analysis/analysis-periods.ts';

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
export type InstitutionColumnKey = (typeof institutionColumnKeys)[number];
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

/**
 * The period of the 紹介数 columns (each against the same days a year before): this 年度 to today (the
 * default, as the top page), the last 年度, or the twelve whole months before this one.
 */
export const referralSpans = ['fiscal_year', 'last_fiscal_year', 'last_12_months'] as const;
export type ReferralSpan = (typeof referralSpans)[number];
export const referralSpanLabels: Record<ReferralSpan, string> = {
  fiscal_year: '今年度',
  last_fiscal_year: '前年度',
  last_12_months: '直近12か月',
};

/** The periods the search and export send for a span, as of `today` (Japan). */
export function referralPeriodsOf(
  span: ReferralSpan | undefined,
  today = todayInJapan(),
): { referral_period: Period; comparison_referral_period: Period } {
  const fy = fiscalYearOf(today);
  let period: Period;
  if (span === 'last_fiscal_year') period = fiscalYearPeriod(fy - 1);
  else if (span === 'last_12_months') {
    const y = Number(today.slice(0, 4));
    const m = Number(today.slice(5, 7));
    const monthStart = (months: number) => new Date(Date.UTC(y, m - 1 + months, 1)).toISOString().slice(0, 10);
    const lastOfPrevious = new Date(Date.UTC(y, m - 1, 0)).toISOString().slice(0, 10);
    period = { from: monthStart(-12), to: lastOfPrevious };
  } else period = { from: `${fy}-04-01`, to: today };
  return { referral_period: period, comparison_referral_period: comparisonOf(period, 'last_year')! };
}

// The contract's enumerations, as plain lists: this module is read by the route's validateSearch, which
// the entry chunk carries, so it stays free of zod (search-state.test.ts checks them against the contract).
export const sortKeys = [
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
] as const satisfies readonly MedicalInstitutionSortKey[];

// Figures are read biggest (or latest) first: the most referrals, the latest visit.
const descendingFirst: ReadonlySet<MedicalInstitutionSortKey> = new Set([
  'referral_count',
  'comparison_referral_count',
  'rate_of_referral_change',
  'last_visit_date',
]);

/**
 * The direction a click on a column's sort asks for: the other direction on the column sorted by, else
 * descending for the figures and the last visit, ascending for names, addresses and the like.
 */
export function nextSortDirection(
  key: MedicalInstitutionSortKey,
  current: { sort_by: MedicalInstitutionSortKey; sort: 'asc' | 'desc' },
): 'asc' | 'desc' {
  if (key === current.sort_by) return current.sort === 'asc' ? 'desc' : 'asc';
  return descendingFirst.has(key) ? 'desc' : 'asc';
}

/**
 * The orders a phone offers (it has no column headers to click): the ones a liaison needs on the road —
 * who refers most, whose referrals fell most, who has not been visited for longest.
 */
export const phoneSortChoices: readonly { sort_by: MedicalInstitutionSortKey; sort: 'asc' | 'desc'; label: string }[] =
  [
    { sort_by: 'kana', sort: 'asc', label: '名前順' },
    { sort_by: 'referral_count', sort: 'desc', label: '紹介数の多い順' },
    { sort_by: 'rate_of_referral_change', sort: 'asc', label: '紹介が減った順' },
    { sort_by: 'rate_of_referral_change', sort: 'desc', label: '紹介が増えた順' },
    { sort_by: 'last_visit_date', sort: 'asc', label: '最終訪問日の古い順' },
    { sort_by: 'last_visit_date', sort: 'desc', label: '最終訪問日の新しい順' },
  ];

export const runningStatuses = ['open', 'closed', 'suspended', 'unknown'] as const satisfies readonly RunningStatus[];
export const tagSearchConditions = ['include', 'exclude'] as const;
type TagSearchCondition = (typeof tagSearchConditions)[number];
export const filterGroupLogics = ['and', 'or', 'nand', 'nor'] as const;
type FilterGroupLogic = (typeof filterGroupLogics)[number];
const prefecturePattern = /^(0[1-9]|[1-3][0-9]|4[0-7])$/;
const isIdList = (v: unknown, max: number): v is string[] => Array.isArray(v) && v.length <= max && v.every(isUuid);

export interface TagGroupState {
  search_condition: TagSearchCondition;
  logic: FilterGroupLogic;
  tag_ids: string[];
}

/** Everything partner management shows, as kept in the URL: a shared link reproduces the view. */
export interface InstitutionSearchState {
  keyword?: string;
  prefectures?: PrefectureCode[];
  cities?: string[];
  area_ids?: string[];
  facility_type_ids?: string[];
  department_ids?: string[];
  tag_groups?: TagGroupState[];
  phase_master_ids?: string[];
  include_no_phase?: boolean;
  running_statuses?: RunningStatus[];
  label_filters?: LabelFilter[];
  /** 最終訪問: visited at least once within the period. */
  visited_period?: { from: string; to: string };
  /** 最終訪問: no visit on or after this day (never visited included). */
  not_visited_since?: string;
  /** Ranges of the 紹介数 figures of the referral span; the rate in percent. */
  min_referral_count?: number;
  max_referral_count?: number;
  min_comparison_referral_count?: number;
  max_comparison_referral_count?: number;
  min_rate_of_referral_change?: number;
  max_rate_of_referral_change?: number;
  sort_by: MedicalInstitutionSortKey;
  sort: 'asc' | 'desc';
  page: number;
  per_page: number;
  columns?: InstitutionColumnKey[];
  /** Absent: this 年度 (`referralPeriodsOf`). */
  referral_span?: ReferralSpan;
}

const uuid = (v: unknown) => (isUuid(v) ? v : undefined);
const code = (v: unknown) => (typeof v === 'string' && v.length >= 1 && v.length <= 20 ? v : undefined);

function tagGroup(v: unknown): TagGroupState | undefined {
  if (!isRecord(v)) return undefined;
  if (!isIdList(v.tag_ids, 100)) return undefined;
  return {
    search_condition: enumParam(v.search_condition, tagSearchConditions, 'include'),
    logic: enumParam(v.logic, filterGroupLogics, 'or'),
    tag_ids: v.tag_ids,
  };
}

/** A label condition as LabelFilter of the contract accepts it; anything malformed drops the list. */
function labelFilter(v: unknown): LabelFilter | undefined {
  if (!isRecord(v) || !isUuid(v.label_id)) return undefined;
  const out: LabelFilter = { label_id: v.label_id };
  if (v.text !== undefined) {
    if (typeof v.text !== 'string' || v.text.trim().length > 100) return undefined;
    out.text = v.text.trim();
  }
  for (const key of ['integer_min', 'integer_max'] as const) {
    const value = v[key];
    if (value === undefined) continue;
    if (typeof value !== 'number' || !Number.isInteger(value)) return undefined;
    out[key] = value;
  }
  for (const key of ['date_from', 'date_to'] as const) {
    const value = v[key];
    if (value === undefined) continue;
    if (!isCalendarDay(value)) return undefined;
    out[key] = value;
  }
  for (const key of ['selection_ids', 'own_department_ids', 'area_ids'] as const) {
    const value = v[key];
    if (value === undefined) continue;
    if (!isIdList(value, 100)) return undefined;
    out[key] = value;
  }
  if (v.is_empty !== undefined) {
    if (typeof v.is_empty !== 'boolean') return undefined;
    out.is_empty = v.is_empty;
  }
  return out;
}

/** The referral figures the filters range over, with the bounds the contract accepts for each. */
export const referralFigures = ['referral_count', 'comparison_referral_count', 'rate_of_referral_change'] as const;
export type ReferralFigure = (typeof referralFigures)[number];
const figureBounds: Record<ReferralFigure, { min: number; integer: boolean }> = {
  referral_count: { min: 0, integer: true },
  comparison_referral_count: { min: 0, integer: true },
  rate_of_referral_change: { min: -100, integer: false },
};
const figureMax = 1_000_000_000;

function figureBound(v: unknown, figure: ReferralFigure): number | undefined {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
  const { min, integer } = figureBounds[figure];
  return Number.isFinite(n) && n >= min && n <= figureMax && (!integer || Number.isInteger(n)) ? n : undefined;
}

/** A range whose minimum exceeds its maximum is dropped whole (the search would refuse it). */
function figureRanges(search: SearchInput): Partial<ReferralFigureFilters> {
  const out: Partial<ReferralFigureFilters> = {};
  for (const figure of referralFigures) {
    const min = figureBound(search[`min_${figure}`], figure);
    const max = figureBound(search[`max_${figure}`], figure);
    if (min !== undefined && max !== undefined && min > max) continue;
    if (min !== undefined) out[`min_${figure}`] = min;
    if (max !== undefined) out[`max_${figure}`] = max;
  }
  return out;
}

function visitedPeriod(v: unknown): { from: string; to: string } | undefined {
  if (!isRecord(v) || !isCalendarDay(v.from) || !isCalendarDay(v.to) || v.from > v.to) return undefined;
  return { from: v.from, to: v.to };
}

function parseInstitutionSearch(search: SearchInput): InstitutionSearchState {
  const state: InstitutionSearchState = {
    keyword: trimmedString(search.keyword, 0, 100),
    prefectures: listParam(search.prefectures, (v) =>
      typeof v === 'string' && prefecturePattern.test(v) ? v : undefined,
    ),
    cities: listParam(search.cities, (v) => trimmedString(v, 1, 50)),
    area_ids: listParam(search.area_ids, uuid),
    facility_type_ids: listParam(search.facility_type_ids, code),
    department_ids: listParam(search.department_ids, code),
    tag_groups:
      Array.isArray(search.tag_groups) && search.tag_groups.length <= 10
        ? (() => {
            const groups = search.tag_groups.map(tagGroup);
            return groups.every((g) => g !== undefined) ? (groups as TagGroupState[]) : undefined;
          })()
        : undefined,
    phase_master_ids: listParam(search.phase_master_ids, uuid),
    include_no_phase: typeof search.include_no_phase === 'boolean' ? search.include_no_phase : undefined,
    running_statuses: listParam(search.running_statuses, (v) => enumParam(v, runningStatuses, undefined)),
    label_filters:
      Array.isArray(search.label_filters) && search.label_filters.length <= 20
        ? (() => {
            const filters = search.label_filters.map(labelFilter);
            return filters.every((f) => f !== undefined) ? (filters as LabelFilter[]) : undefined;
          })()
        : undefined,
    visited_period: visitedPeriod(search.visited_period),
    not_visited_since: isCalendarDay(search.not_visited_since) ? search.not_visited_since : undefined,
    ...figureRanges(search),
    sort_by: enumParam(search.sort_by, sortKeys, 'kana'),
    sort: enumParam(search.sort, ['asc', 'desc'], 'asc'),
    page: intParam(search.page, 1, Number.MAX_SAFE_INTEGER, 1),
    per_page: (perPageChoices as readonly number[]).includes(intParam(search.per_page, 1, 100, 0))
      ? intParam(search.per_page, 1, 100, 0)
      : 20,
    columns: listParam(search.columns, (v) => enumParam(v, institutionColumnKeys, undefined)),
    referral_span: enumParam(search.referral_span, referralSpans, undefined),
  };
  // Absent pieces stay absent (as the URL had them), so equal views compare equal.
  for (const key of Object.keys(state) as (keyof InstitutionSearchState)[])
    if (state[key] === undefined) delete state[key];
  return state;
}

/** The route's search validator (`validateSearch` takes any `{ parse }`). */
export const InstitutionSearchState = { parse: parseInstitutionSearch };

export const emptySearchState: InstitutionSearchState = InstitutionSearchState.parse({});

/** The filter part of the state; changing any of it starts again from page 1. */
export type InstitutionFilters = Omit<
  InstitutionSearchState,
  'sort_by' | 'sort' | 'page' | 'per_page' | 'columns' | 'referral_span'
>;

export function filtersOf(state: InstitutionSearchState): InstitutionFilters {
  const { sort_by: _s, sort: _d, page: _p, per_page: _pp, columns: _c, referral_span: _r, ...filters } = state;
  return filters;
}

export function activeFilterCount(state: InstitutionSearchState): number {
  return Object.values(filtersOf(state)).filter(
    (v) => v !== undefined && v !== '' && v !== false && !(Array.isArray(v) && v.length === 0),
  ).length;
}

/**
 * The conditions the search and export endpoints take, without empty pieces. The referral ranges go
 * with the periods of `referralPeriodsOf`, which every search and export of this screen sends.
 */
export function toConditions(
  state: InstitutionSearchState,
): MedicalInstitutionSearchConditions & Partial<ReferralFigureFilters> {
  const out: MedicalInstitutionSearchConditions & Partial<ReferralFigureFilters> = {};
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
  if (state.visited_period) out.visited_period = state.visited_period;
  if (state.not_visited_since) out.not_visited_since = state.not_visited_since;
  for (const figure of referralFigures)
    for (const key of [`min_${figure}`, `max_${figure}`] as const) if (state[key] !== undefined) out[key] = state[key];
  return out;
}

export function toSearchBody(
  state: InstitutionSearchState,
  today?: string,
): MedicalInstitutionSearchBody & ReturnType<typeof referralPeriodsOf> {
  return {
    ...toConditions(state),
    ...referralPeriodsOf(state.referral_span, today),
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
