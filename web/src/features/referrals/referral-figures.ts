import type { ChartData } from '@renkei/contracts';
import { comparisonOf, fiscalYearOf, type Period } from '../data-analysis/analysis-periods.ts';
import type { ReferralTotals } from '../data-analysis/components/KpiCards.tsx';

interface ReferralFigureTotals extends ReferralTotals {
  reverseReferrals: number;
}

/** An institution's referral figures for this 年度 to date against the last 年度 (to the same date when asked). */
export interface ReferralFigures {
  fiscalYear: number;
  /** The calendar month (1–12) of today: this 年度 counts April to it, and so does the comparison. */
  throughMonth: number;
  current: ReferralFigureTotals;
  previous: ReferralFigureTotals;
  /** Whether the answer has the reverse-referral series at all. */
  hasReverse: boolean;
  /** Whether either 年度 (the whole of the last one included) has a referral; likewise a reverse referral. */
  anyReferral: boolean;
  anyReverse: boolean;
  /** Referrals month by month, April first: this 年度 (null after this month) and the whole of the last. */
  trend: { labels: string[]; current: (number | null)[]; previous: (number | null)[] };
}

/**
 * The chart request the trend and this 年度's figures need: months from the start of the last 年度 to today
 * (the last 年度 drawn whole). Its last year's months are whole, so the comparison is asked apart
 * (previousToDatePeriod); the endpoint's `comparison_period` is ignored there.
 */
export function referralFiguresPeriod(today: string): Period {
  return { from: `${fiscalYearOf(today) - 1}-04-01`, to: today };
}

/**
 * The comparison of this 年度 to date: the last 年度 from April 1 to the same date a year before (the API
 * counts a period's days exactly), so this month so far meets the same days of last year's month, as on
 * the data analysis page — never the whole of it.
 */
export function previousToDatePeriod(today: string): Period {
  return comparisonOf({ from: `${fiscalYearOf(today)}-04-01`, to: today }, 'last_year')!;
}

/** "4月〜11月": the months of a 年度 counted, April to `throughMonth`. */
export function fiscalMonthsLabel(throughMonth: number): string {
  return throughMonth === 4 ? '4月' : `4月〜${throughMonth}月`;
}

const monthLabel = /^(\d{4})年(\d{1,2})月$/;
// April is the 年度's first month: 4 → 0, …, 3 → 11.
const fiscalIndex = (month: number) => (month + 8) % 12;
const zero = (): ReferralFigureTotals => ({ referrals: 0, admissions: 0, operations: 0, reverseReferrals: 0 });

/** Every bucket of an answer summed: the last 年度 to the same date (previousToDatePeriod). */
function totalsOf(data: ChartData): ReferralFigureTotals {
  const sum = (key: string) =>
    (data.series.find((s) => s.key === key)?.values ?? []).reduce<number>((n, v) => n + (v ?? 0), 0);
  return {
    referrals: sum('referrals'),
    admissions: sum('admitted'),
    operations: sum('operated'),
    reverseReferrals: sum('reverse_referrals'),
  };
}

/**
 * Sums the monthly chart (labels `2026年4月`, as the endpoint names months) into this 年度 to date, and
 * takes the comparison from `previousToDate` (the answer for previousToDatePeriod: the last 年度 to the
 * same date, exact to the day, which whole months of the chart could not be). The chart gives the trend,
 * both 年度 month by month. A month after today's is never counted, whatever the answer holds: the
 * period asked ends today, but a cached or wider answer must not add future months (and a 年度's later
 * months are empty anyway, which would make the comparison look like a fall).
 */
export function referralFigures(data: ChartData, today: string, previousToDate: ChartData): ReferralFigures {
  const fy = fiscalYearOf(today);
  const thisMonth = today.slice(0, 7);
  const throughMonth = Number(today.slice(5, 7));
  const thisYear = Number(today.slice(0, 4));
  const values = (key: string) => data.series.find((s) => s.key === key)?.values;
  const referrals = values('referrals');
  const admitted = values('admitted');
  const operated = values('operated');
  const reverse = values('reverse_referrals');
  const current = zero();
  const trend = {
    labels: Array.from({ length: 12 }, (_, i) => `${((i + 3) % 12) + 1}月`),
    current: Array<number | null>(12).fill(null),
    previous: Array<number | null>(12).fill(null),
  };
  let anyReferral = false;
  let anyReverse = false;
  data.labels.forEach((label, i) => {
    const match = monthLabel.exec(label);
    if (!match) return;
    const year = Number(match[1]);
    const month = Number(match[2]);
    if (`${year}-${String(month).padStart(2, '0')}` > thisMonth) return;
    const monthFy = month >= 4 ? year : year - 1;
    if (monthFy !== fy && monthFy !== fy - 1) return;
    const index = fiscalIndex(month);
    const at = (series: readonly (number | null)[] | undefined) => series?.[i] ?? 0;
    anyReferral ||= at(referrals) > 0;
    anyReverse ||= at(reverse) > 0;
    // The last 年度 is drawn whole; this month, under way, is not drawn: its few days (none on the 1st,
    // the data ending yesterday) would read as a sudden fall. The figures above count it.
    if (monthFy !== fy) trend.previous[index] = referrals?.[i] ?? null;
    else if (year !== thisYear || month !== throughMonth) trend.current[index] = referrals?.[i] ?? null;
    if (monthFy !== fy) return;
    current.referrals += at(referrals);
    current.admissions += at(admitted);
    current.operations += at(operated);
    current.reverseReferrals += at(reverse);
  });
  return {
    fiscalYear: fy,
    throughMonth,
    current,
    previous: totalsOf(previousToDate),
    hasReverse: reverse !== undefined,
    anyReferral,
    anyReverse,
    trend,
  };
}

/** A month of the referral page's table: counted, under way (partly counted) or still to come. */
interface FiscalYearMonth {
  label: string;
  state: 'past' | 'current' | 'future';
  /** One value per series of the answer, in its order. */
  values: number[];
}

export interface FiscalYearBlock {
  fiscalYear: number;
  months: FiscalYearMonth[];
  /** Per series, the months counted so far. */
  totals: number[];
  /** The month under way when this is the current 年度 (its total counts April to it), else null. */
  throughMonth: number | null;
}

/**
 * The monthly chart (labels `2026年4月`) as 年度 blocks for the referral page's table, the newest 年度
 * first, its months April to March. A month after today's holds nothing yet: it is marked, and it adds
 * nothing to the 年度's total, whatever the answer holds.
 */
export function fiscalYearTable(data: ChartData, today: string): FiscalYearBlock[] {
  const thisMonth = today.slice(0, 7);
  const blocks = new Map<number, FiscalYearBlock>();
  data.labels.forEach((label, i) => {
    const match = monthLabel.exec(label);
    if (!match) return;
    const year = Number(match[1]);
    const month = Number(match[2]);
    const key = `${year}-${String(month).padStart(2, '0')}`;
    const state = key < thisMonth ? 'past' : key === thisMonth ? 'current' : 'future';
    const fiscalYear = month >= 4 ? year : year - 1;
    let block = blocks.get(fiscalYear);
    if (!block) {
      block = { fiscalYear, months: [], totals: data.series.map(() => 0), throughMonth: null };
      blocks.set(fiscalYear, block);
    }
    const values = data.series.map((s) => s.values[i] ?? 0);
    block.months.push({ label, state, values });
    if (state === 'future') return;
    values.forEach((v, j) => (block.totals[j]! += v));
    if (state === 'current') block.throughMonth = month;
  });
  for (const block of blocks.values())
    block.months.sort((a, b) => fiscalIndexOfLabel(a.label) - fiscalIndexOfLabel(b.label));
  return [...blocks.values()].sort((a, b) => b.fiscalYear - a.fiscalYear);
}

const fiscalIndexOfLabel = (label: string) => fiscalIndex(Number(monthLabel.exec(label)![2]));
