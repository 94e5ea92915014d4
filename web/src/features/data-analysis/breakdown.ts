import type { ReferralReportResult } from '@renkei/contracts';
import type { z } from 'zod';
import { changeRate, percent } from './figures.ts';

type Result = z.infer<typeof ReferralReportResult>;

export interface BreakdownRow extends Record<string, string | number | null> {
  name: string;
  referrals: number;
  previous: number | null;
  change: number | null;
  change_rate: number | null;
  admissions: number;
  admission_rate: number | null;
  operations: number;
  operation_rate: number | null;
}

const unset = '（未設定）';

/** Turns a grouping value the API gives as a code (the facility type's id) into what the user reads. */
export type GroupLabels = (key: string, value: string) => string;

function nameOf(keys: Record<string, string | null>, by: readonly string[], labels: GroupLabels): string {
  const parts = by
    .map((k) => {
      const v = keys[k];
      return v === null || v === undefined || v === '' ? undefined : labels(k, v);
    })
    .filter((v): v is string => v !== undefined);
  return parts.length > 0 ? parts.join(' ') : unset;
}

/**
 * The period's groups beside the comparison period's, by the group's name; a group only in the comparison
 * period shows with 0 referrals (it had none in the period). Rates are computed from the counts, in percent.
 */
export function breakdownRows(
  current: Result,
  comparison: Result | null,
  by: readonly string[],
  labels: GroupLabels = (_, v) => v,
): BreakdownRow[] {
  const before = new Map<string, number>();
  for (const r of comparison?.data ?? []) {
    const name = nameOf(r.grouping_keys, by, labels);
    before.set(name, (before.get(name) ?? 0) + r.referral_count);
  }
  const rows = new Map<string, BreakdownRow>();
  const row = (name: string): BreakdownRow => {
    let r = rows.get(name);
    if (!r) {
      r = {
        name,
        referrals: 0,
        previous: comparison ? (before.get(name) ?? 0) : null,
        change: null,
        change_rate: null,
        admissions: 0,
        admission_rate: null,
        operations: 0,
        operation_rate: null,
      };
      rows.set(name, r);
    }
    return r;
  };
  for (const r of current.data) {
    const target = row(nameOf(r.grouping_keys, by, labels));
    target.referrals += r.referral_count;
    target.admissions += r.hospital_admission_count;
    target.operations += r.operation_count;
  }
  for (const name of before.keys()) row(name);
  for (const r of rows.values()) {
    r.change = r.previous === null ? null : r.referrals - r.previous;
    const rate = changeRate(r.referrals, r.previous);
    r.change_rate = rate === null ? null : Math.round(rate * 1000) / 10;
    r.admission_rate = percent(r.admissions, r.referrals);
    r.operation_rate = percent(r.operations, r.referrals);
  }
  return [...rows.values()].sort(
    (a, b) => b.referrals - a.referrals || (b.previous ?? 0) - (a.previous ?? 0) || a.name.localeCompare(b.name, 'ja'),
  );
}

/** The totals of a grouping that partitions the referrals (each referral in exactly one group). */
export function totalsOf(result: Result) {
  let referrals = 0;
  let admissions = 0;
  let operations = 0;
  for (const r of result.data) {
    referrals += r.referral_count;
    admissions += r.hospital_admission_count;
    operations += r.operation_count;
  }
  return { referrals, admissions, operations };
}
