import { MantineProvider } from '@mantine/core';
import { fireEvent, render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { SvgChart, type SvgChartSeries } from './SvgChart.tsx';

const labels = ['4月', '5月', '6月', '7月'];
const series: SvgChartSeries[] = [
  { key: 'now', label: '紹介（対象期間）', color: 'blue.6', values: [120, 80, null, 200] },
  { key: 'before', label: '紹介（比較期間）', color: 'gray.5', values: [100, 100, 90, 150] },
];

function draw(kind: 'line' | 'bar' | 'stacked', extra: { unit?: string; fixedMax?: number } = {}) {
  render(
    <MantineProvider>
      <SvgChart kind={kind} labels={labels} series={series} height={240} label="紹介件数の推移" {...extra} />
    </MantineProvider>,
  );
  return screen.getByRole('img', { name: '紹介件数の推移' });
}

describe('SvgChart', () => {
  it('draws each line through the middle of its buckets, broken where a value is missing, on a round axis', () => {
    const chart = draw('line');
    const paths = [...chart.querySelectorAll('path')].map((p) => p.getAttribute('d'));
    // Axis 0–200 in steps of 50; four buckets of 250 units.
    expect(paths).toEqual(['M125 40L375 60M875 0', 'M125 50L375 50L625 55L875 25']);
    expect(chart).toHaveTextContent('150');
    expect(chart).toHaveTextContent('紹介（対象期間）');
  });

  it('stacks bars on each other', () => {
    const stacked = draw('stacked');
    const rects = [...stacked.querySelectorAll('rect')];
    // 7 values above zero; the stacked total 350 makes the axis 0–400.
    expect(rects).toHaveLength(7);
    const april = rects.filter((r) => r.getAttribute('x') === '25');
    expect(april.map((r) => [r.getAttribute('y'), r.getAttribute('height')])).toEqual([
      ['70', '30'],
      ['45', '25'],
    ]);
  });

  it('sets grouped bars side by side inside their bucket, on the axis of the tallest', () => {
    const grouped = draw('bar');
    const april = [...grouped.querySelectorAll('rect')].filter((r) => Number(r.getAttribute('x')) < 250);
    // Axis 0–200; the bucket's middle 80 % shared by the two series.
    expect(april.map((r) => ['x', 'width', 'y', 'height'].map((a) => r.getAttribute(a)))).toEqual([
      ['25', '100', '40', '60'],
      ['125', '100', '50', '50'],
    ]);
  });

  it("repeats a bucket's figures in a tooltip while the pointer is over it", () => {
    const chart = draw('line', { unit: '%', fixedMax: 100 });
    expect(screen.queryByTestId('chart-tooltip')).toBeNull();
    const bands = chart.querySelector('.rk-chart-bands')!.children;
    fireEvent.mouseEnter(bands[2]!);
    const tooltip = screen.getByTestId('chart-tooltip');
    expect(tooltip).toHaveTextContent('6月');
    // A missing value is a dash, not zero.
    expect(tooltip).toHaveTextContent('紹介（対象期間）—');
    expect(tooltip).toHaveTextContent('紹介（比較期間）90%');
    fireEvent.mouseLeave(chart.querySelector('.rk-chart-plot')!);
    expect(screen.queryByTestId('chart-tooltip')).toBeNull();
  });
});
