import { describe, expect, it } from 'vitest';
import { readModelLabel } from './labels.ts';

describe('readModelLabel', () => {
  it('names a read model in Japanese', () => {
    expect(readModelLabel('report_definitions')).toBe('レポート');
  });

  it('shows an unknown name (a newer build) as it is', () => {
    expect(readModelLabel('future_model')).toBe('future_model');
  });
});
