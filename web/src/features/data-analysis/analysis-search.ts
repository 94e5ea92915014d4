import type { PeriodUnit } from '@renkei/contracts';
import {
  enumParam,
  isCalendarDay,
  isUuid,
  listParam,
  trimmedString,
  type SearchInput,
} from '../../app/search-params.ts';

/** How the period is compared: the same dates a year earlier (年度 over 年度), the period just before, or not. */
export type ComparisonMode = 'last_year' | 'previous' | 'none';

export interface AnalysisFilters {
  from: string;
  to: string;
  unit: PeriodUnit;
  cmp: ComparisonMode;
  own: string[];
  ft: string[];
  tags: string[];
  /** Area of the referring institution: prefecture codes 01–47 and municipalities (the API's addition). */
  pref: string[];
  city: string[];
}

/** The search as the URL holds it: only what differs from the defaults, so a plain link opens the default view. */
export type AnalysisSearch = Partial<AnalysisFilters> & {
  // `own: []` is kept: "every department", chosen over the account's own department (the route's redirect).
  /** The group tab (a group tenant's institutions compared); absent: the hospital's own analysis. */
  view?: 'group';
};

const units: readonly PeriodUnit[] = ['week', 'month', 'quarter', 'half_year', 'year', 'fiscal_year'];
const modes: readonly ComparisonMode[] = ['last_year', 'previous', 'none'];
const masterCode = (v: unknown) => trimmedString(v, 1, 20);
const uuid = (v: unknown) => (isUuid(v) ? v : undefined);
const prefectureCode = (v: unknown) =>
  typeof v === 'string' && /^(0[1-9]|[1-3][0-9]|4[0-7])$/.test(v) ? v : undefined;
const cityName = (v: unknown) => trimmedString(v, 1, 50);

/** The URL's search, each piece validated alone (a bad piece falls back, the rest of the link still applies). */
export function analysisSearch(search: SearchInput): AnalysisSearch {
  const from = isCalendarDay(search.from) ? search.from : undefined;
  const to = isCalendarDay(search.to) ? search.to : undefined;
  const period = from && to && from <= to ? { from, to } : {};
  const unit = enumParam(search.unit, units, undefined);
  const cmp = enumParam(search.cmp, modes, undefined);
  const own = Array.isArray(search.own) && search.own.length === 0 ? [] : listParam(search.own, uuid, 200);
  const ft = listParam(search.ft, masterCode, 100);
  const tags = listParam(search.tags, uuid, 100);
  const pref = listParam(search.pref, prefectureCode, 47);
  const city = listParam(search.city, cityName, 200);
  const view = enumParam(search.view, ['group'], undefined);
  return {
    ...(view ? { view } : {}),
    ...period,
    ...(unit ? { unit } : {}),
    ...(cmp ? { cmp } : {}),
    ...(own ? { own } : {}),
    ...(ft ? { ft } : {}),
    ...(tags ? { tags } : {}),
    ...(pref ? { pref } : {}),
    ...(city ? { city } : {}),
  };
}
