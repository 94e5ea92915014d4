/**
 * The value axis of a chart: 0 up to a round maximum at or above the data's, in at most `ticks` equal steps
 * of 1, 2, 2.5 or 5 times a power of ten (what a reader expects on an axis); a count's step is whole. A
 * fixed maximum (percentages: 100) is divided into `ticks` steps as given.
 */
export function valueAxis(dataMax: number, opts: { ticks?: number; fixedMax?: number } = {}): number[] {
  const ticks = opts.ticks ?? 4;
  const fixedMax = opts.fixedMax;
  if (fixedMax !== undefined) return Array.from({ length: ticks + 1 }, (_, i) => (fixedMax * i) / ticks);
  const max = Math.max(dataMax, 1);
  const power = 10 ** Math.floor(Math.log10(max / ticks));
  for (const m of [1, 2, 2.5, 5, 10]) {
    const step = Math.max(1, m * power);
    if (!Number.isInteger(step)) continue;
    const count = Math.ceil(max / step);
    if (count <= ticks) return Array.from({ length: count + 1 }, (_, i) => i * step);
  }
  // Unreachable: ten times the power always fits (power ≤ max / ticks).
  return [0, max];
}

/** Every n-th category label, so that at most `max` labels share the axis (the others stay blank). */
export function labelEvery(count: number, max = 12): number {
  return Math.max(1, Math.ceil(count / max));
}

/**
 * The path of one line series across `count` equal bands (x at each band's middle, in a 0–1000 × 0–100
 * box, y down), broken where a value is missing rather than drawn through it.
 */
export function linePath(values: readonly (number | null)[], max: number): string {
  const band = 1000 / values.length;
  let path = '';
  let pen = false;
  values.forEach((v, i) => {
    if (v === null) {
      pen = false;
      return;
    }
    path += `${pen ? 'L' : 'M'}${round(band * (i + 0.5))} ${round(100 - (v / max) * 100)}`;
    pen = true;
  });
  return path;
}

/** A coordinate to two decimals: short attributes, and no 44.99999999999999 for 45. */
export const round = (n: number) => Math.round(n * 100) / 100;
