import { describe, expect, it } from 'vitest';
import { AlertFilters, AlertTriggers } from './alert.schemas.ts';
import { alertConditionSummary } from './alert-summary.ts';

describe('alertConditionSummary', () => {
  it('joins the triggers with 「・」', () => {
    expect(
      alertConditionSummary(
        AlertTriggers.parse({
          referral_change_count: { direction: 'decrease', count: 5 },
          communication_visit: { days_without_visit: 90 },
        }),
        AlertFilters.parse({}),
      ),
    ).toBe('前月比で紹介が5件以上減少・90日以上訪問なし');
  });

  it('says what the filters narrow to, by name where given', () => {
    expect(
      alertConditionSummary(
        AlertTriggers.parse({
          referral_change_rate: { direction: 'increase', rate: 20 },
          referral_average: { comparison: 'gte', average: 2.5, months: 6 },
        }),
        AlertFilters.parse({
          prefecture: '22',
          tag_ids: ['00000000-0000-4000-8000-000000000001'],
          facility_type_ids: ['11', '13'],
          referral_count: { min: 1, max: null },
          communication_visit: 'not_visited',
        }),
        { tags: ['重点'] },
      ),
    ).toBe(
      '前月比で紹介が20%以上増加・直近6か月の紹介月平均が2.5件以上（静岡県、施設種別2件、タグ「重点」、前月の紹介1件以上、訪問実績なし）',
    );
  });
});
