/**
 * Period units of spec §9 for the referral analysis: the buckets a period splits into, the 年度 (fiscal
 * year, April to March) they belong to, the same months of the previous 年度, and which buckets the
 * tenant's data covers. Dates are ISO `YYYY-MM-DD` strings, ranges inclusive at both ends; no clock and
 * no time zone (a referral's date is a calendar date).
 */

export type AnalysisPeriodUnit = 'week' | 'month' | 'quarter' | 'half_year' | 'year' | 'fiscal_year';

export interface DateRange {
  from: string;
  to: string;
}

/** One point of a chart's x axis: its unit's interval, clipped to the period asked for. */
export interface Bucket extends DateRange {
  /** The start of the whole (unclipped) interval: a Monday, a month's 1st, April 1st … */
  key: string;
  label: string;
}

const DAY = 86_400_000;

function parse(date: string): { y: number; m: number; d: number } {
  return { y: Number(date.slice(0, 4)), m: Number(date.slice(5, 7)), d: Number(date.slice(8, 10)) };
}

function iso(y: number, m: number, d: number): string {
  // Date.UTC normalises overflowing months and days (month 13 → January of the next year).
  return new Date(Date.UTC(y, m - 1, d)).toISOString().slice(0, 10);
}

export function addDays(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY).toISOString().slice(0, 10);
}

function lastDayOfMonth(y: number, m: number): number {
  return new Date(Date.UTC(y, m, 0)).getUTCDate();
}

/** The 年度 a date falls in: April 1st 2024 to March 31st 2025 is 2024年度. */
export function fiscalYearOf(date: string): number {
  const { y, m } = parse(date);
  return m >= 4 ? y : y - 1;
}

/** The start of the unit's interval that holds the date. Weeks start on Monday. */
export function bucketKey(date: string, unit: AnalysisPeriodUnit): string {
  const { y, m } = parse(date);
  switch (unit) {
    case 'week': {
      const weekday = new Date(`${date}T00:00:00Z`).getUTCDay();
      return addDays(date, -((weekday + 6) % 7));
    }
    case 'month':
      return iso(y, m, 1);
    case 'quarter':
      // Quarters of the 年度: April–June, July–September, October–December, January–March.
      return iso(y, m - ((m + 8) % 3), 1);
    case 'half_year':
      return m >= 4 && m <= 9 ? iso(y, 4, 1) : m >= 10 ? iso(y, 10, 1) : iso(y - 1, 10, 1);
    case 'year':
      return iso(y, 1, 1);
    case 'fiscal_year':
      return iso(fiscalYearOf(date), 4, 1);
    default: {
      const never: never = unit;
      return never;
    }
  }
}

/** The first day after the unit's interval that starts at `key`. */
function nextKey(key: string, unit: AnalysisPeriodUnit): string {
  const { y, m } = parse(key);
  switch (unit) {
    case 'week':
      return addDays(key, 7);
    case 'month':
      return iso(y, m + 1, 1);
    case 'quarter':
      return iso(y, m + 3, 1);
    case 'half_year':
      return iso(y, m + 6, 1);
    case 'year':
    case 'fiscal_year':
      return iso(y + 1, m, 1);
    default: {
      const never: never = unit;
      return never;
    }
  }
}

export function bucketLabel(key: string, unit: AnalysisPeriodUnit): string {
  const { y, m, d } = parse(key);
  const fy = fiscalYearOf(key);
  switch (unit) {
    case 'week':
      return `${y}年${m}月${d}日週`;
    case 'month':
      return `${y}年${m}月`;
    case 'quarter':
      return `${fy}年度 第${Math.floor(((m + 8) % 12) / 3) + 1}四半期`;
    case 'half_year':
      return `${fy}年度 ${m === 4 ? '上期' : '下期'}`;
    case 'year':
      return `${y}年`;
    case 'fiscal_year':
      return `${fy}年度`;
    default: {
      const never: never = unit;
      return never;
    }
  }
}

/** The buckets of a period in order; the first and last are clipped to the period. */
export function bucketsOf(range: DateRange, unit: AnalysisPeriodUnit): Bucket[] {
  const out: Bucket[] = [];
  for (let key = bucketKey(range.from, unit); key <= range.to; key = nextKey(key, unit)) {
    const end = addDays(nextKey(key, unit), -1);
    out.push({
      key,
      label: bucketLabel(key, unit),
      from: key < range.from ? range.from : key,
      to: end > range.to ? range.to : end,
    });
  }
  return out;
}

/**
 * The same date a year earlier, month end kept as month end (2025-02-28 → 2024-02-29, and 2024-02-29 →
 * 2023-02-28), so a period of whole months maps to the same whole months of the year before.
 */
export function shiftYears(date: string, years: number): string {
  const { y, m, d } = parse(date);
  const last = lastDayOfMonth(y, m);
  const target = lastDayOfMonth(y + years, m);
  return iso(y + years, m, d === last ? target : Math.min(d, target));
}

/** Year over year: the same months (and days) of the previous 年度. */
export function previousYearPeriod(range: DateRange): DateRange {
  return { from: shiftYears(range.from, -1), to: shiftYears(range.to, -1) };
}

/**
 * Year to date: the period cut at the last date the data covers, so an unfinished 年度 is compared with
 * the same months of the last one, never with a whole year. Unchanged when the data reaches its end
 * or there is no data at all.
 */
export function yearToDate(range: DateRange, lastCovered: string | null): DateRange {
  if (lastCovered === null || lastCovered >= range.to || lastCovered < range.from) return range;
  return { from: range.from, to: lastCovered };
}

/**
 * A bucket's figure as a chart shows it: null where the tenant's data does not cover any day of it
 * (before the first imported date or after the last), the count (0 included) where it does.
 */
export function coveredValue(bucket: DateRange, coverage: DateRange | null, value: number): number | null {
  if (coverage === null || bucket.to < coverage.from || bucket.from > coverage.to) return null;
  return value;
}

/**
 * A period split into the part a rollup of the given grain answers (`inner`: from the first grain
 * start to the last grain end inside the period, null when no whole grain fits) and the days at its
 * edges it cannot (`edges`, at most two ranges, each shorter than one grain). A segment is the part of
 * a Monday-to-Sunday week inside its month: it starts on a Monday or a 1st and ends on a Sunday or a
 * month's last day.
 */
export function splitForRollups(
  range: DateRange,
  grain: 'segment' | 'month',
): { inner: DateRange | null; edges: DateRange[] } {
  const isStart = (date: string) =>
    date.endsWith('-01') || (grain === 'segment' && new Date(`${date}T00:00:00Z`).getUTCDay() === 1);
  let from = range.from;
  while (from <= range.to && !isStart(from)) from = addDays(from, 1);
  let to = range.to;
  while (to >= from && !isStart(addDays(to, 1))) to = addDays(to, -1);
  if (from > to) return { inner: null, edges: range.from <= range.to ? [range] : [] };
  const edges: DateRange[] = [];
  if (from > range.from) edges.push({ from: range.from, to: addDays(from, -1) });
  if (to < range.to) edges.push({ from: addDays(to, 1), to: range.to });
  return { inner: { from, to }, edges };
}
