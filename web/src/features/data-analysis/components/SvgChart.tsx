import './svg-chart.css';
import { Fragment, useState, type ReactNode } from 'react';
import { labelEvery, linePath, round, valueAxis } from '../chart-scale.ts';

export interface SvgChartSeries {
  key: string;
  label: string;
  /** A theme colour as Mantine names it (`blue.6`). */
  color: string;
  values: readonly (number | null)[];
}

const themeColor = (name: string) => `var(--mantine-color-${name.replace('.', '-')})`;
const numbers = new Intl.NumberFormat('ja-JP', { maximumFractionDigits: 1 });

/**
 * A line, grouped-bar or stacked-bar chart of a few series over up to a few dozen buckets, as the analysis
 * page draws them.
 *
 * Everything is placed in percentages of the plot (one SVG in a 1000 × 100 box stretched to it, lines
 * with non-scaling strokes, dots and labels as positioned HTML), so the browser lays it out with the page
 * and nothing is measured in script. The page drew its four charts with recharts (through
 * @mantine/charts); loading and drawing them — its store, its measurements of every tick's text and of
 * its container — was about a third of the page's time to show every panel (docs/benchmarks.md,
 * "Issue 13 — 2026-11-29, third session"). The figures are in the table under each chart as well, so the
 * chart is an image to assistive technology; its tooltip repeats a bucket's figures for the mouse.
 */
export function SvgChart({
  kind,
  labels,
  series,
  height,
  unit = '',
  fixedMax,
  label,
}: {
  kind: 'line' | 'bar' | 'stacked';
  labels: readonly string[];
  series: readonly SvgChartSeries[];
  /** The whole chart's height in pixels, legend and axis labels included. */
  height: number;
  /** Written after each value (`%`). */
  unit?: string;
  /** A fixed top of the value axis (100 for percentages). */
  fixedMax?: number;
  /** What the chart shows, for assistive technology. */
  label: string;
}) {
  const [active, setActive] = useState<number | null>(null);
  const count = Math.max(labels.length, 1);
  const dataMax =
    kind === 'stacked'
      ? Math.max(0, ...labels.map((_, i) => series.reduce((sum, s) => sum + (s.values[i] ?? 0), 0)))
      : Math.max(0, ...series.flatMap((s) => s.values.map((v) => v ?? 0)));
  const axis = valueAxis(dataMax, fixedMax === undefined ? {} : { fixedMax });
  const top = axis.at(-1)!;
  const y = (v: number) => round(100 - (v / top) * 100);
  const band = 1000 / count;
  const every = labelEvery(count);
  const columns = { gridTemplateColumns: `repeat(${count}, minmax(0, 1fr))` };
  const show = (v: number | null) => (v === null ? '—' : `${numbers.format(v)}${unit}`);

  const shapes: ReactNode[] = [];
  if (kind === 'line') {
    for (const s of series)
      shapes.push(
        <path
          key={s.key}
          d={linePath(s.values, top)}
          fill="none"
          stroke={themeColor(s.color)}
          strokeWidth={2}
          strokeLinejoin="round"
          vectorEffect="non-scaling-stroke"
        />,
      );
  } else {
    labels.forEach((_, i) => {
      let base = 0;
      series.forEach((s, k) => {
        const v = s.values[i] ?? 0;
        if (v <= 0) return;
        const x = kind === 'stacked' ? band * (i + 0.1) : band * (i + 0.1) + ((band * 0.8) / series.length) * k;
        const w = kind === 'stacked' ? band * 0.8 : (band * 0.8) / series.length;
        const from = kind === 'stacked' ? base : 0;
        base += v;
        shapes.push(
          <rect
            key={`${s.key}-${i}`}
            x={round(x)}
            width={round(w)}
            y={round(y(from + v))}
            height={round((v / top) * 100)}
            fill={themeColor(s.color)}
          />,
        );
      });
    });
  }

  const tooltip =
    active === null ? null : (
      <div
        className="rk-chart-tooltip"
        data-testid="chart-tooltip"
        // Beside the bucket, on the side with more room.
        style={
          active < count / 2
            ? { left: `calc(${((active + 1) / count) * 100}% + 8px)` }
            : { right: `calc(${((count - active) / count) * 100}% + 8px)` }
        }
      >
        <strong>{labels[active]}</strong>
        {series.map((s) => (
          <div key={s.key}>
            <span className="rk-chart-swatch" style={{ background: themeColor(s.color) }} />
            <span>{s.label}</span>
            <span>{show(s.values[active] ?? null)}</span>
          </div>
        ))}
      </div>
    );

  return (
    <div className="rk-chart" style={{ height }} role="img" aria-label={label} data-chart={kind}>
      <div className="rk-chart-legend" aria-hidden>
        {series.map((s) => (
          <span key={s.key} className="rk-chart-key">
            <span className="rk-chart-swatch" style={{ background: themeColor(s.color) }} />
            {s.label}
          </span>
        ))}
      </div>
      <div className="rk-chart-y" aria-hidden>
        {axis.map((v) => (
          <span key={v} style={{ bottom: `${(v / top) * 100}%` }}>
            {numbers.format(v)}
            {unit}
          </span>
        ))}
      </div>
      <div className="rk-chart-plot" onMouseLeave={() => setActive(null)}>
        <svg viewBox="0 0 1000 100" preserveAspectRatio="none" aria-hidden>
          {axis.slice(1).map((v) => (
            <line
              key={v}
              className="rk-chart-grid"
              x1={0}
              x2={1000}
              y1={y(v)}
              y2={y(v)}
              vectorEffect="non-scaling-stroke"
            />
          ))}
          {shapes}
        </svg>
        {kind === 'line' &&
          series.map((s) => (
            <Fragment key={s.key}>
              {s.values.map((v, i) =>
                v === null ? null : (
                  <span
                    key={i}
                    className="rk-chart-dot"
                    style={{
                      left: `${((i + 0.5) / count) * 100}%`,
                      top: `${y(v)}%`,
                      background: themeColor(s.color),
                      ...(active === i ? { width: 10, height: 10 } : {}),
                    }}
                  />
                ),
              )}
            </Fragment>
          ))}
        <div className="rk-chart-bands" style={columns} aria-hidden>
          {labels.map((_, i) => (
            <div key={i} data-active={active === i || undefined} onMouseEnter={() => setActive(i)} />
          ))}
        </div>
        {tooltip}
      </div>
      <div className="rk-chart-x" style={columns} aria-hidden>
        {labels.map((l, i) => (
          <span key={i}>{i % every === 0 ? l : ''}</span>
        ))}
      </div>
    </div>
  );
}
