import { describe, expect, it } from 'vitest';
import { breakdownRows, totalsOf } from './breakdown.ts';

const row = (keys: Record<string, string | null>, referrals: number, admissions = 0, operations = 0) => ({
  grouping_keys: keys,
  referral_count: referrals,
  hospital_admission_count: admissions,
  hospital_admission_rate: null,
  operation_count: operations,
  operation_rate: null,
});

describe('breakdownRows', () => {
  it('joins the comparison period by group, keeps groups only it has, and names missing values 未設定', () => {
    const now = { data: [row({ own_department: '内科' }, 10, 4, 1), row({ own_department: null }, 2)] };
    const before = { data: [row({ own_department: '内科' }, 5), row({ own_department: '外科' }, 3)] };
    expect(breakdownRows(now, before, ['own_department'])).toEqual([
      {
        name: '内科',
        referrals: 10,
        previous: 5,
        change: 5,
        change_rate: 100,
        admissions: 4,
        admission_rate: 40,
        operations: 1,
        operation_rate: 10,
      },
      expect.objectContaining({ name: '（未設定）', referrals: 2, previous: 0, change: 2, change_rate: null }),
      expect.objectContaining({ name: '外科', referrals: 0, previous: 3, change: -3, admission_rate: null }),
    ]);
    expect(totalsOf(now)).toEqual({ referrals: 12, admissions: 4, operations: 1 });
  });

  it('names a group from its keys through the labels given, and leaves the change out without a comparison', () => {
    const now = { data: [row({ prefecture: '静岡県', city: '静岡市' }, 3), row({ facility_type: 'h' }, 1)] };
    const rows = breakdownRows(now, null, ['prefecture', 'city']);
    expect(rows[0]).toMatchObject({ name: '静岡県 静岡市', previous: null, change: null });
    const types = breakdownRows({ data: [row({ facility_type: 'h' }, 1)] }, null, ['facility_type'], (_, v) =>
      v === 'h' ? '一般病院' : v,
    );
    expect(types[0]!.name).toBe('一般病院');
  });
});
