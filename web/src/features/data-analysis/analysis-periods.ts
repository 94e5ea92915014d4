import { businessDateRange, type ChartData, type PeriodUnit } from '@renkei/contracts';
import type { AnalysisFilters, AnalysisSearch, ComparisonMode } from './analysis-search.ts';

export interface Period {
  from: string;
  to: string;
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

/**
 * Where this 年度 to date ends: the last day of the uploaded referral data (`dataEnd`) when it ends
 * before today within this 年度, else today. The hospital's export runs up to yesterday or the last month
 * end; a period to today would meet the same days of last year, whose data is complete, with days the
 * current data cannot hold yet, and every figure would read as a decrease (on December 1st with data up to
 * November 30th, last year's December 1st; mid-month with data up to the month end, half a month).
 */
export function yearToDateEnd(today: string, dataEnd: string | null | undefined): string {
  const fyStart = `${fiscalYearOf(today)}-04-01`;
  return dataEnd && dataEnd < today && dataEnd >= fyStart ? dataEnd : today;
}

/**
 * Spec §9 and issue 13: by default this 年度 from April 1 to date (`yearToDateEnd`: the data's last day),
 * against the same days of the last 年度 (the API counts a period's own days, so this month so far meets
 * the same days a year before).
 */
export function withDefaults(search: AnalysisSearch, today: string, dataEnd: string | null = null): AnalysisFilters {
  const fy = fiscalYearOf(today);
  return {
    from: search.from ?? `${fy}-04-01`,
    to: search.to ?? yearToDateEnd(today, dataEnd),
    unit: search.unit ?? 'month',
    cmp: search.cmp ?? 'last_year',
    own: search.own ?? [],
    ft: search.ft ?? [],
    tags: search.tags ?? [],
    pref: search.pref ?? [],
    city: search.city ?? [],
  };
}

/**
 * The same date a year earlier or later, a month's last day kept as the month's last day (the API's
 * rule, docs/decisions.md): 2028-02-29 → 2027-02-28, and 2027-02-28 → 2026-02-28 but 2029-02-28 →
 * 2028-02-29, so a period of whole months meets the same whole months and a 年度 to date the same days.
 */
function shiftYears(day: string, years: number): string {
  const y = Number(day.slice(0, 4)) + years;
  const m = Number(day.slice(5, 7));
  const d = Number(day.slice(8, 10));
  const target = d === lastDayOf(y - years, m) ? lastDayOf(y, m) : Math.min(d, lastDayOf(y, m));
  return isoDay(y, m, target);
}

// setUTCFullYear, not Date.UTC: Date.UTC reads years 0–99 as 1900–1999, and a link may hold year 0050.
function lastDayOf(year: number, month: number): number {
  const d = new Date(0);
  d.setUTCFullYear(year, month, 0);
  return d.getUTCDate();
}

const isoDay = (y: number, m: number, d: number) =>
  `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`;

function addDays(day: string, n: number): string {
  const d = new Date(`${day}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + n);
  return d.toISOString().slice(0, 10);
}

function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000);
}

/**
 * The same date some months earlier, a month's last day kept as the month's last day (as `shiftYears`):
 * 2026-11-30 → 2026-03-31 eight months back, 2026-05-15 → 2026-04-15.
 */
function shiftMonths(day: string, months: number): string {
  const index = Number(day.slice(0, 4)) * 12 + Number(day.slice(5, 7)) - 1 + months;
  const [y, m] = [Math.floor(index / 12), (index % 12) + 1];
  const d = Number(day.slice(8, 10));
  const sourceLast = lastDayOf(Number(day.slice(0, 4)), Number(day.slice(5, 7)));
  const target = d === sourceLast ? lastDayOf(y, m) : Math.min(d, lastDayOf(y, m));
  return isoDay(y, m, target);
}

/**
 * The period compared with: the same dates one year earlier (so a 年度 to date meets the same months of the
 * last 年度, never the whole of it), or the period just before of the same length. A period that starts on
 * a month's first day is as many months long as it spans, so the months just before it are compared and a
 * chart by month pairs month with month (April with March whole, not March 2–31); other periods are compared
 * with the days just before of the same number of days.
 */
export function comparisonOf(period: Period, mode: ComparisonMode): Period | null {
  if (mode === 'none') return null;
  if (mode === 'last_year') return { from: shiftYears(period.from, -1), to: shiftYears(period.to, -1) };
  if (period.from.endsWith('-01')) {
    const months =
      (Number(period.to.slice(0, 4)) - Number(period.from.slice(0, 4))) * 12 +
      Number(period.to.slice(5, 7)) -
      Number(period.from.slice(5, 7)) +
      1;
    return { from: shiftMonths(period.from, -months), to: shiftMonths(period.to, -months) };
  }
  const length = daysBetween(period.from, period.to);
  const to = addDays(period.from, -1);
  return { from: addDays(to, -length), to };
}

const inRange = (p: Period) => p.from >= businessDateRange.from && p.to <= businessDateRange.to;

/**
 * Why the page cannot ask for these figures, or null when it can: every call takes dates of
 * `businessDateRange` only, the comparison periods included (visit effectiveness compares with the period
 * just before when no comparison is chosen). A year being typed passes through such dates (0002-04-01):
 * the page says so once instead of every panel showing the API's refusal.
 */
export function periodProblem(f: Pick<AnalysisFilters, 'from' | 'to' | 'cmp'>): string | null {
  const period = { from: f.from, to: f.to };
  const compared = [period, comparisonOf(period, f.cmp), comparisonOf(period, 'previous')];
  if (compared.every((p) => p === null || inRange(p))) return null;
  return inRange(period)
    ? '比べる期間が1900年1月1日より前になります。期間を後ろにずらすか、短くしてください。'
    : '期間は1900年1月1日から2100年12月31日の間で指定してください。';
}

/** The first and last day of the period unit that holds `day` (weeks Monday–Sunday, halves and 年度 from April). */
function unitBounds(day: string, unit: PeriodUnit): { first: string; last: string } {
  const y = Number(day.slice(0, 4));
  const m = Number(day.slice(5, 7));
  const monthsFrom = (year: number, month: number, count: number) => {
    const endYear = year + Math.floor((month - 1 + count - 1) / 12);
    const endMonth = ((month - 1 + count - 1) % 12) + 1;
    return { first: isoDay(year, month, 1), last: isoDay(endYear, endMonth, lastDayOf(endYear, endMonth)) };
  };
  switch (unit) {
    case 'week': {
      const weekday = (new Date(`${day}T00:00:00Z`).getUTCDay() + 6) % 7;
      return { first: addDays(day, -weekday), last: addDays(day, 6 - weekday) };
    }
    case 'month':
      return monthsFrom(y, m, 1);
    case 'quarter':
      return monthsFrom(y, m - ((m - 1) % 3), 3);
    case 'half_year':
      return m >= 4 && m <= 9 ? monthsFrom(y, 4, 6) : monthsFrom(m >= 10 ? y : y - 1, 10, 6);
    case 'year':
      return monthsFrom(y, 1, 12);
    case 'fiscal_year':
      return monthsFrom(m >= 4 ? y : y - 1, 4, 12);
  }
}

const monthDay = (day: string) => `${Number(day.slice(5, 7))}/${Number(day.slice(8, 10))}`;

/**
 * The chart with its first and last labels saying when the period cuts their bucket short: on the 1st of a
 * month the default view's last month holds one day, and without 「（12/1まで）」 its few referrals read as a
 * collapse. The comparison's bucket holds the same days, so one label serves both lines.
 */
export function markPartialBuckets(chart: ChartData, f: Pick<AnalysisFilters, 'from' | 'to' | 'unit'>): ChartData {
  const count = chart.labels.length;
  if (count === 0) return chart;
  const startCut = unitBounds(f.from, f.unit).first !== f.from;
  const endCut = unitBounds(f.to, f.unit).last !== f.to;
  if (!startCut && !endCut) return chart;
  const labels = [...chart.labels];
  if (count === 1 && startCut && endCut) labels[0] = `${labels[0]}（${monthDay(f.from)}〜${monthDay(f.to)}）`;
  else {
    if (startCut) labels[0] = `${labels[0]}（${monthDay(f.from)}から）`;
    if (endCut) labels[count - 1] = `${labels[count - 1]}（${monthDay(f.to)}まで）`;
  }
  return { ...chart, labels };
}
