import { prefectureNames } from '../core/prefectures.ts';
import type { AlertFilters, AlertTriggers } from './alert.schemas.ts';

/** Names of what the filters refer to by id, when the caller can resolve them. */
export interface AlertSummaryNames {
  area?: string | null;
  facilityTypes?: readonly string[];
  departments?: readonly string[];
  tags?: readonly string[];
}

const number = (n: number) => (Number.isInteger(n) ? String(n) : String(Math.round(n * 10) / 10));
const bound = (comparison: 'gte' | 'lte') => (comparison === 'gte' ? '以上' : '以下');
const change = (direction: 'increase' | 'decrease') => (direction === 'increase' ? '増加' : '減少');

function range(label: string, r: { min: number | null; max: number | null } | null): string | null {
  if (!r || (r.min === null && r.max === null)) return null;
  if (r.min !== null && r.max !== null) return `${label}${number(r.min)}〜${number(r.max)}件`;
  return r.min !== null ? `${label}${number(r.min)}件以上` : `${label}${number(r.max!)}件以下`;
}

/** The triggers as phrases, in the contract's order (every one must hold). */
export function alertTriggerPhrases(t: AlertTriggers): string[] {
  const phrases: string[] = [];
  if (t.referral_change_count)
    phrases.push(`前月比で紹介が${t.referral_change_count.count}件以上${change(t.referral_change_count.direction)}`);
  if (t.referral_change_rate)
    phrases.push(
      `前月比で紹介が${number(t.referral_change_rate.rate)}%以上${change(t.referral_change_rate.direction)}`,
    );
  if (t.referral_count) phrases.push(`前月の紹介が${t.referral_count.count}件${bound(t.referral_count.comparison)}`);
  if (t.referral_average)
    phrases.push(
      `直近${t.referral_average.months}か月の紹介月平均が${number(t.referral_average.average)}件${bound(t.referral_average.comparison)}`,
    );
  if (t.communication_visit) phrases.push(`${t.communication_visit.days_without_visit}日以上訪問なし`);
  return phrases;
}

/** The filters as phrases; an id whose name is not given is counted instead of named. */
export function alertFilterPhrases(f: AlertFilters, names: AlertSummaryNames = {}): string[] {
  const phrases: string[] = [];
  const listed = (label: string, ids: readonly string[], resolved: readonly string[] | undefined) => {
    if (ids.length === 0) return;
    phrases.push(resolved && resolved.length > 0 ? `${label}「${resolved.join('」「')}」` : `${label}${ids.length}件`);
  };
  if (f.prefecture) phrases.push(prefectureNames[Number(f.prefecture) - 1] ?? f.prefecture);
  if (f.area) phrases.push(names.area ? `エリア「${names.area}」` : 'エリア指定');
  listed('施設種別', f.facility_type_ids, names.facilityTypes);
  listed('診療科', f.department_ids, names.departments);
  listed('タグ', f.tag_ids, names.tags);
  const count = range('前月の紹介', f.referral_count);
  if (count) phrases.push(count);
  const average = range('紹介月平均', f.referral_average);
  if (average) phrases.push(average);
  if (f.communication_visit === 'visited') phrases.push('訪問実績あり');
  if (f.communication_visit === 'not_visited') phrases.push('訪問実績なし');
  return phrases;
}

/**
 * The readable Japanese sentence of a condition (an alert's `condition_summary`): the triggers joined
 * with 「・」, then what the filters narrow to, e.g. 「前月比で紹介が5件以上減少・90日以上訪問なし（静岡県、タグ「重点」）」.
 */
export function alertConditionSummary(
  triggers: AlertTriggers,
  filters: AlertFilters,
  names: AlertSummaryNames = {},
): string {
  const head = alertTriggerPhrases(triggers).join('・');
  const narrowed = alertFilterPhrases(filters, names);
  return narrowed.length > 0 ? `${head}（${narrowed.join('、')}）` : head;
}
