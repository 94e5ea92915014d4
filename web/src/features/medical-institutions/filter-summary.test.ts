import { describe, expect, it } from 'vitest';
import { describeFilters, rangeText, type FilterNames } from './filter-summary.ts';

const names: FilterNames = {
  prefecture: (c) => (c === '22' ? '静岡県' : ''),
  area: () => undefined,
  facilityType: (id) => (id === '1' ? '病院' : undefined),
  department: () => undefined,
  tag: (id) => ({ a: '紹介元', b: '重点' })[id],
  phase: () => undefined,
  label: () => undefined,
};

describe('the caption of the filters in use', () => {
  it('says every filter in Japanese, in the panel order', () => {
    expect(
      describeFilters(
        {
          keyword: ' 内科 ',
          prefectures: ['22'],
          facility_type_ids: ['1', '9'],
          tag_groups: [{ search_condition: 'exclude', logic: 'or', tag_ids: ['a', 'b'] }],
          running_statuses: ['open'],
          visited_period: { from: '2025-04-01', to: '2025-06-30' },
          not_visited_since: '2025-01-01',
          min_referral_count: 5,
          max_comparison_referral_count: 3,
          min_rate_of_referral_change: -20,
          max_rate_of_referral_change: 10,
        },
        names,
      ),
    ).toEqual([
      'キーワード「内科」',
      '都道府県: 静岡県',
      '施設区分: 病院、不明',
      'タグ（除外・いずれか）: 紹介元、重点',
      '運営状況: 運営中',
      '最終訪問: 2025/04/01〜2025/06/30に訪問あり',
      '最終訪問: 2025/01/01以降訪問なし（未訪問を含む）',
      '紹介数 5件以上',
      '比較期間の紹介数 3件以下',
      '紹介増減率 -20〜10%',
    ]);
  });

  it('says nothing without filters', () => {
    expect(describeFilters({}, names)).toEqual([]);
  });

  it('words a range by the bounds given', () => {
    expect(rangeText('referral_count', 2, 2)).toBe('2件');
    expect(rangeText('referral_count', 0, 4)).toBe('0〜4件');
    expect(rangeText('rate_of_referral_change', undefined, -10)).toBe('-10%以下');
    expect(rangeText('comparison_referral_count', undefined, undefined)).toBeNull();
  });
});
