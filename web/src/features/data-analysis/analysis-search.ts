import type { PeriodUnit } from '@renkei/contracts';
import { enumParam, isUuid, listParam, trimmedString, type SearchInput } from '../../app/search-params.ts';

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
}

export interface Period {
  from: string;
  to: string;
}

/** The search as the URL holds it: only what differs from the defaults, so a plain link opens the default view. */
export type AnalysisSearch = Partial<AnalysisFilters>;

const units: readonly PeriodUnit[] = ['week', 'month', 'quarter', 'half_year', 'year', 'fiscal_year'];
const modes: readonly ComparisonMode[] = ['last_year', 'previous', 'none'];
const dayPattern = /^(\d{4})-(\d{2})-(\d{2})$/;

function isDay(v: unknown): v is string {
  if (typeof v !== 'string') return false;
  const m = dayPattern.exec(v);
  if (!m) return false;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return d.toISOString().slice(0, 10) === v;
}

const masterCode = (v: unknown) => trimmedString(v, 1, 20);
const uuid = (v: unknown) => (isUuid(v) ? v : undefined);

/** The URL's search, each piece validated alone (a bad piece falls back, the rest of the link still applies). */
export function analysisSearch(search: SearchInput): AnalysisSearch {
  const from = isDay(search.from) ? search.from : undefined;
  const to = isDay(search.to) ? search.to : undefined;
  const period = from && to && from <= to ? { from, to } : {};
  const unit = enumParam(search.unit, units, undefined);
  const cmp = enumParam(search.cmp, modes, undefined);
  const own = listParam(search.own, uuid, 200);
  const ft = listParam(search.ft, masterCode, 100);
  const tags = listParam(search.tags, uuid, 100);
  return {
    ...period,
    ...(unit ? { unit } : {}),
    ...(cmp ? { cmp } : {}),
    ...(own ? { own } : {}),
    ...(ft ? { ft } : {}),
    ...(tags ? { tags } : {}),
  };
}

/** Today's date in Japan (the fiscal calendar is Japan's, whatever the browser's zone). */
export function todayInJapan(now = new Date()): string {
  return new Date(now.getTime() + 9 * 3_600_000).toISOString().slice(0, 10);
}

/** The 年度 (April to March) a date falls in. */
export function fiscalYearOf(day: string): number {
  const year = Number(day.slice(0, 4));
  return Number(day.slice(5, 7)) >= 4 ? year : year - 1;
}

export function fiscalYearPeriod(fy: number): Period {
  return { from: `${fy}-04-01`, to: `${fy + 1}-03-31` };
}

/** Spec §9 and issue 13: by default this 年度 from April 1 to today, against the same months last 年度. */
export function withDefaults(search: AnalysisSearch, today: string): AnalysisFilters {
  const fy = fiscalYearOf(today);
  return {
    from: search.from ?? `${fy}-04-01`,
    to: search.to ?? today,
    unit: search.unit ?? 'month',
    cmp: search.cmp ?? 'last_year',
    own: search.own ?? [],
    ft: search.ft ?? [],
    tags: search.tags ?? [],
  };
}

function shiftYears(day: string, years: number): string {
  const y = Number(day.slice(0, 4)) + years;
  const md = day.slice(5);
  // February 29 has no twin in a common year: the comparison ends on the 28th.
  if (md === '02-29' && !(y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0))) return `${y}-02-28`;
  return `${y}-${md}`;
}

function addDays(day: string, n: number): string {
  const d = new Date(`${day}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + n);
  return d.toISOString().slice(0, 10);
}

function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000);
}

/**
 * The period compared with: the same dates one year earlier (so a 年度 to date meets the same months of the
 * last 年度, never the whole of it), or the days just before of the same length.
 */
export function comparisonOf(period: Period, mode: ComparisonMode): Period | null {
  if (mode === 'none') return null;
  if (mode === 'last_year') return { from: shiftYears(period.from, -1), to: shiftYears(period.to, -1) };
  const length = daysBetween(period.from, period.to);
  const to = addDays(period.from, -1);
  return { from: addDays(to, -length), to };
}
