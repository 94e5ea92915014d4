import { describe, expect, it } from 'vitest';
import { formatFraction, formatPercent } from './percent.ts';

describe('formatPercent', () => {
  it('always shows one decimal, so figures of one column line up', () => {
    expect(formatPercent(50)).toBe('50.0%');
    expect(formatPercent(33.333)).toBe('33.3%');
    expect(formatPercent(0)).toBe('0.0%');
  });

  it('signs a change only when asked, and never signs no change', () => {
    expect(formatPercent(12.5, { signed: true })).toBe('+12.5%');
    expect(formatPercent(-12.5, { signed: true })).toBe('-12.5%');
    expect(formatPercent(-0.04, { signed: true })).toBe('0.0%');
    expect(formatPercent(12.5)).toBe('12.5%');
  });

  it('shows a dash, or what the caller gives, when there is no figure', () => {
    expect(formatPercent(null)).toBe('—');
    expect(formatPercent(undefined)).toBe('—');
    expect(formatPercent(Number.NaN)).toBe('—');
    expect(formatPercent(null, { none: '' })).toBe('');
  });
});

describe('formatFraction', () => {
  it('reads 0.5 as 50 %: 0 is a figure, null is none (nothing to divide by)', () => {
    expect(formatFraction(0.5)).toBe('50.0%');
    expect(formatFraction(0.3333)).toBe('33.3%');
    expect(formatFraction(0.001)).toBe('0.1%');
    expect(formatFraction(0)).toBe('0.0%');
    expect(formatFraction(null)).toBe('—');
    expect(formatFraction(-0.25, { signed: true })).toBe('-25.0%');
    expect(formatFraction(0.25, { signed: true })).toBe('+25.0%');
  });
});
