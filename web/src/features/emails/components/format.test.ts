import { describe, expect, it } from 'vitest';
import { formatRate } from './format.ts';

describe('formatRate', () => {
  it('shows a percentage with one decimal, and a dash when there is nothing to divide by', () => {
    expect(formatRate(0.5)).toBe('50%');
    expect(formatRate(0.3333)).toBe('33.3%');
    expect(formatRate(0.001)).toBe('0.1%');
    // 0 is a figure (sent, none delivered); null is none (nothing to divide by).
    expect(formatRate(0)).toBe('0%');
    expect(formatRate(null)).toBe('—');
  });
});
