import { describe, expect, it } from 'vitest';
import { AlertConditionInput } from './alert.schemas.ts';

describe('AlertConditionInput', () => {
  it('needs at least one trigger', () => {
    const result = AlertConditionInput.safeParse({ name: '紹介減少', type: 'referral', triggers: {} });
    expect(result.success).toBe(false);
    expect(result.error!.issues[0]).toMatchObject({ path: ['triggers'], message: '条件を1つ以上設定してください' });
  });

  it('fills defaults for filters and unset triggers', () => {
    const parsed = AlertConditionInput.parse({
      name: '紹介減少',
      type: 'referral',
      triggers: { referral_change_rate: { direction: 'decrease', rate: 30 } },
    });
    expect(parsed.triggers.referral_count).toBeNull();
    expect(parsed.filters).toMatchObject({ prefecture: null, tag_ids: [], communication_visit: 'all' });
  });

  it('rejects an inverted range', () => {
    const result = AlertConditionInput.safeParse({
      name: 'x',
      type: 'referral',
      triggers: { referral_count: { comparison: 'gte', count: 1 } },
      filters: { referral_count: { min: 10, max: 2 } },
    });
    expect(result.success).toBe(false);
    expect(result.error!.issues[0]!.path).toEqual(['filters', 'referral_count', 'min']);
  });
});
