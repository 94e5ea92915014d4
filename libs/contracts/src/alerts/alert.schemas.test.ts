import { describe, expect, it } from 'vitest';
import { AlertConditionInput, StoredAlertFilters, StoredAlertTriggers } from './alert.schemas.ts';

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

  it('refuses decimal and huge counts, and huge averages (the evaluation compares them as integers)', () => {
    const issues = (triggers: object, filters: object = {}) => {
      const result = AlertConditionInput.safeParse({ name: 'x', type: 'referral', triggers, filters });
      expect(result.success).toBe(false);
      return result.error!.issues.map((i) => ({ path: i.path, message: i.message }));
    };
    const ok = { referral_count: { comparison: 'gte', count: 1 } };
    expect(issues(ok, { referral_count: { min: 1.5, max: null } })).toEqual([
      { path: ['filters', 'referral_count', 'min'], message: '整数を入力してください' },
    ]);
    expect(issues(ok, { referral_count: { min: null, max: 3e9 } })).toEqual([
      { path: ['filters', 'referral_count', 'max'], message: '100,000以下で入力してください' },
    ]);
    expect(issues({ referral_count: { comparison: 'gte', count: 1.5 } })).toEqual([
      { path: ['triggers', 'referral_count', 'count'], message: '整数を入力してください' },
    ]);
    expect(issues({ referral_change_count: { direction: 'decrease', count: 3e9 } })).toEqual([
      { path: ['triggers', 'referral_change_count', 'count'], message: '100,000以下で入力してください' },
    ]);
    expect(issues({ referral_average: { comparison: 'gte', average: 3e9, months: 3 } })).toEqual([
      { path: ['triggers', 'referral_average', 'average'], message: '100,000以下で入力してください' },
    ]);
    expect(issues(ok, { referral_average: { min: 0, max: 3e9 } })[0]!.path).toEqual([
      'filters',
      'referral_average',
      'max',
    ]);
    // An average may have decimals; conditions stored before the bounds still parse (events, read models).
    expect(
      AlertConditionInput.safeParse({
        name: 'x',
        type: 'referral',
        triggers: { referral_average: { comparison: 'gte', average: 1.5, months: 3 } },
      }).success,
    ).toBe(true);
    expect(StoredAlertTriggers.parse({ referral_count: { comparison: 'gte', count: 1.5 } })).toBeTruthy();
    expect(StoredAlertFilters.parse({ referral_count: { min: 3e9, max: null } })).toBeTruthy();
  });
});
