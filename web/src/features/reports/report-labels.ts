import type { ReportAggregationSettings } from '@renkei/contracts';
import { fiscalYearOf, periodUnitLabels } from './report-editor.ts';

const monthOf = (day: string) => `${Number(day.slice(0, 4))}年${Number(day.slice(5, 7))}月`;

/** 「2025年4月〜2026年3月（月）」 or 「2024年度〜2025年度（年度）」. */
export function periodLabel(settings: Pick<ReportAggregationSettings, 'period' | 'unit_type' | 'period_unit'>): string {
  const { from, to } = settings.period;
  const range =
    settings.unit_type === 'year'
      ? fiscalYearOf(from) === fiscalYearOf(to)
        ? `${fiscalYearOf(from)}年度`
        : `${fiscalYearOf(from)}年度〜${fiscalYearOf(to)}年度`
      : from.slice(0, 7) === to.slice(0, 7)
        ? monthOf(from)
        : `${monthOf(from)}〜${monthOf(to)}`;
  return `${range}（${periodUnitLabels[settings.period_unit]}）`;
}
