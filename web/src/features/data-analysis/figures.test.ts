import { describe, expect, it } from 'vitest';
import { withoutComparison } from './figures.ts';

describe('withoutComparison', () => {
  it('drops the comparison series of a comparison chart and keeps the others in order', () => {
    const chart = {
      labels: ['2026年4月', '2026年5月'],
      series: [
        { key: 'referrals', name: '紹介（対象期間）', values: [3, 4] },
        { key: 'comparison_referrals', name: '紹介（比較期間）', values: [1, 2] },
        { key: 'reverse_referrals', name: '逆紹介（対象期間）', values: [5, null] },
        { key: 'comparison_reverse_referrals', name: '逆紹介（比較期間）', values: [0, 0] },
      ],
    };
    expect(withoutComparison(chart)).toEqual({
      labels: chart.labels,
      series: [chart.series[0], chart.series[2]],
    });
  });

  it('leaves a chart without comparison series as it is', () => {
    const chart = { labels: ['4月'], series: [{ key: 'referrals', name: '紹介', values: [1] }] };
    expect(withoutComparison(chart)).toEqual(chart);
  });
});
