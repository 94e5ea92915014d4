import { runningStatusLabel } from './labels-ja.ts';
import { referralFigures, type InstitutionFilters, type ReferralFigure } from './search-state.ts';

/** Names of the ids the filters hold, as the reference data gives them; an id not found reads 不明. */
export interface FilterNames {
  prefecture: (code: string) => string;
  area: (id: string) => string | undefined;
  facilityType: (id: string) => string | undefined;
  department: (id: string) => string | undefined;
  tag: (id: string) => string | undefined;
  phase: (id: string) => string | undefined;
  label: (id: string) => string | undefined;
}

export const figureLabel: Record<ReferralFigure, string> = {
  referral_count: '紹介数',
  comparison_referral_count: '比較期間の紹介数',
  rate_of_referral_change: '紹介増減率',
};

const slashed = (day: string) => day.replaceAll('-', '/');
const listed = (values: readonly string[], name: (v: string) => string | undefined) =>
  values.map((v) => name(v) || '不明').join('、');

const conditionLabel = { include: '含む', exclude: '除外' } as const;
const logicLabel = { and: 'すべて', or: 'いずれか', nand: 'すべては含まない', nor: 'いずれも含まない' } as const;

/** One range in words: 「5件以上」「5〜10件」「10件以下」, the rate with %. */
export function rangeText(figure: ReferralFigure, min: number | undefined, max: number | undefined): string | null {
  const unit = figure === 'rate_of_referral_change' ? '%' : '件';
  if (min !== undefined && max !== undefined) return min === max ? `${min}${unit}` : `${min}〜${max}${unit}`;
  if (min !== undefined) return `${min}${unit}以上`;
  if (max !== undefined) return `${max}${unit}以下`;
  return null;
}

/** The filters in use, each as a short Japanese phrase, in the order of the filter panel. */
export function describeFilters(f: InstitutionFilters, names: FilterNames): string[] {
  const out: string[] = [];
  if (f.keyword?.trim()) out.push(`キーワード「${f.keyword.trim()}」`);
  if (f.prefectures?.length) out.push(`都道府県: ${listed(f.prefectures, names.prefecture)}`);
  if (f.cities?.length) out.push(`市区町村: ${f.cities.join('、')}`);
  if (f.area_ids?.length) out.push(`エリア: ${listed(f.area_ids, names.area)}`);
  if (f.facility_type_ids?.length) out.push(`施設区分: ${listed(f.facility_type_ids, names.facilityType)}`);
  if (f.department_ids?.length) out.push(`診療科: ${listed(f.department_ids, names.department)}`);
  for (const g of f.tag_groups ?? [])
    if (g.tag_ids.length)
      out.push(
        `タグ（${conditionLabel[g.search_condition]}・${logicLabel[g.logic]}）: ${listed(g.tag_ids, names.tag)}`,
      );
  if (f.phase_master_ids?.length)
    out.push(`フェーズ: ${listed(f.phase_master_ids, names.phase)}${f.include_no_phase ? '（未設定を含む）' : ''}`);
  if (f.running_statuses?.length)
    out.push(`運営状況: ${f.running_statuses.map((s) => runningStatusLabel[s]).join('、')}`);
  if (f.label_filters?.length)
    out.push(
      `ラベル: ${listed(
        f.label_filters.map((l) => l.label_id),
        names.label,
      )}`,
    );
  if (f.visited_period)
    out.push(`最終訪問: ${slashed(f.visited_period.from)}〜${slashed(f.visited_period.to)}に訪問あり`);
  if (f.not_visited_since) out.push(`最終訪問: ${slashed(f.not_visited_since)}以降訪問なし（未訪問を含む）`);
  for (const figure of referralFigures) {
    const text = rangeText(figure, f[`min_${figure}`], f[`max_${figure}`]);
    if (text) out.push(`${figureLabel[figure]} ${text}`);
  }
  return out;
}
