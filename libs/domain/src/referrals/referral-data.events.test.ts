import { describe, expect, it } from 'vitest';
import { ReferralsImported, referralColumnsOf, referralsOfChunk, type ReferralFact } from './referral-data.events.ts';

const fact = (i: number): ReferralFact => ({
  identity: `referral:${i}`,
  row_number: i + 2,
  referral_date: '2024-05-01',
  patient_id: String(i),
  patient_key: String(i),
  medical_institution_id: i % 2 === 0 ? null : '0b0c5e1d-9a7f-4c2e-8d6b-4a2f1e3c5d7b',
  institution_code: i % 3 === 0 ? null : '1312345678',
  institution_name: '連携クリニック',
  from_department: null,
  from_doctor: null,
  to_department: '内科',
  own_department_id: null,
  to_doctor: null,
  purpose: i % 2 === 0 ? '精査' : null,
  first_visit: i % 3 === 0 ? null : i % 3 === 1,
  source_id: null,
});
const chunk = {
  import_id: '0b0c5e1d-9a7f-4c2e-8d6b-4a2f1e3c5d7c',
  chunk: 0,
  imported_row_count: 3,
  failed_row_count: 0,
  errors: [],
};

describe('ReferralsImported', () => {
  it('carries the same referrals as columns as it did as records', () => {
    const referrals = [fact(0), fact(1), fact(2)];
    const asColumns = ReferralsImported.parse(
      JSON.parse(JSON.stringify({ ...chunk, referral_columns: referralColumnsOf(referrals) })),
    );
    expect(asColumns.referral_columns!.identity).toEqual(['referral:0', 'referral:1', 'referral:2']);
    expect(referralsOfChunk(asColumns)).toEqual(referrals);
    // Events written before carry one record per referral.
    expect(referralsOfChunk(ReferralsImported.parse({ ...chunk, referrals }))).toEqual(referrals);
  });

  it('refuses a chunk with columns of different lengths, or with both forms or neither', () => {
    const columns = referralColumnsOf([fact(0), fact(1)]);
    expect(
      ReferralsImported.safeParse({ ...chunk, referral_columns: { ...columns, patient_key: ['0'] } }).success,
    ).toBe(false);
    expect(ReferralsImported.safeParse({ ...chunk, referral_columns: columns, referrals: [fact(0)] }).success).toBe(
      false,
    );
    expect(ReferralsImported.safeParse(chunk).success).toBe(false);
    expect(ReferralsImported.safeParse({ ...chunk, referral_columns: columns }).success).toBe(true);
  });
});
