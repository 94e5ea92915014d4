import type { PeriodUnit } from './report.schemas.ts';

/** One column bucket of a report period: `key` the first day of its whole unit, `from`/`to` the clipped days. */
export interface ReportBucket {
  key: string;
  label: string;
  from: string;
  to: string;
}

/** A calendar day as a UTC date (reports count days, never instants). */
const day = (iso: string) => new Date(`${iso}T00:00:00Z`);
const iso = (d: Date) => d.toISOString().slice(0, 10);
const addDays = (d: Date, n: number) => new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + n));
const monthStart = (y: number, m0: number) => new Date(Date.UTC(y, m0, 1));

/** The 年度 a month belongs to (April–March): January–March belong to the previous year's 年度. */
const fiscalYearOf = (y: number, m0: number) => (m0 >= 3 ? y : y - 1);

interface Unit {
  /** The first day of the unit that contains `d`. */
  start(d: Date): Date;
  /** The first day of the next unit. */
  next(start: Date): Date;
  label(start: Date): string;
}

const units: Record<PeriodUnit, Unit> = {
  week: {
    // Monday–Sunday: getUTCDay() is 0 on Sunday, so Sunday goes back 6 days.
    start: (d) => addDays(d, -((d.getUTCDay() + 6) % 7)),
    next: (s) => addDays(s, 7),
    label: (s) => `${s.getUTCMonth() + 1}/${s.getUTCDate()}週`,
  },
  month: {
    start: (d) => monthStart(d.getUTCFullYear(), d.getUTCMonth()),
    next: (s) => monthStart(s.getUTCFullYear(), s.getUTCMonth() + 1),
    label: (s) => `${s.getUTCFullYear()}年${s.getUTCMonth() + 1}月`,
  },
  quarter: {
    // Quarters of the 年度: April–June is 第1四半期, January–March 第4 of the previous year's 年度.
    start: (d) => monthStart(d.getUTCFullYear(), d.getUTCMonth() - ((d.getUTCMonth() + 9) % 3)),
    next: (s) => monthStart(s.getUTCFullYear(), s.getUTCMonth() + 3),
    label: (s) => {
      const m0 = s.getUTCMonth();
      return `${fiscalYearOf(s.getUTCFullYear(), m0)}年第${Math.floor(((m0 + 9) % 12) / 3) + 1}四半期`;
    },
  },
  half_year: {
    // Halves of the 年度: 上期 April–September, 下期 October–March.
    start: (d) => monthStart(d.getUTCFullYear(), d.getUTCMonth() - ((d.getUTCMonth() + 9) % 6)),
    next: (s) => monthStart(s.getUTCFullYear(), s.getUTCMonth() + 6),
    label: (s) => {
      const m0 = s.getUTCMonth();
      return `${fiscalYearOf(s.getUTCFullYear(), m0)}年度${m0 === 3 ? '上期' : '下期'}`;
    },
  },
  year: {
    start: (d) => monthStart(d.getUTCFullYear(), 0),
    next: (s) => monthStart(s.getUTCFullYear() + 1, 0),
    label: (s) => `${s.getUTCFullYear()}年`,
  },
  fiscal_year: {
    start: (d) => monthStart(fiscalYearOf(d.getUTCFullYear(), d.getUTCMonth()), 3),
    next: (s) => monthStart(s.getUTCFullYear() + 1, 3),
    label: (s) => `${s.getUTCFullYear()}年度`,
  },
};

/**
 * The buckets of a period for a period unit, in order, clipped to the period: the first and last may
 * cover only part of their unit. A bucket's `key` is the first day of its whole unit (the Monday, the
 * 1st of the month, April 1st of the 年度 …) so the same unit has the same key whatever the period,
 * and a source keyed by month or week start can answer it; `from`/`to` are the clipped days.
 * An empty list when `from` is after `to`.
 */
export function periodBuckets(period: { from: string; to: string }, unit: PeriodUnit): ReportBucket[] {
  const u = units[unit];
  const from = day(period.from);
  const to = day(period.to);
  const buckets: ReportBucket[] = [];
  for (let s = u.start(from); s <= to; s = u.next(s)) {
    const end = addDays(u.next(s), -1);
    buckets.push({
      key: iso(s),
      label: u.label(s),
      from: iso(s < from ? from : s),
      to: iso(end > to ? to : end),
    });
  }
  return buckets;
}
