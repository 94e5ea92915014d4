import { describe, it } from 'vitest';
import type { ReferralFact } from '@renkei/domain';
import { invalid } from '../shared/decider.ts';
import { given } from '../shared/given-when-then.ts';
import { referralEntryDecider } from './referral-entry.decider.ts';

const id = '00000000-0000-4000-8000-000000000001';
const surgery = '00000000-0000-4000-8000-000000000002';
const referral: ReferralFact = {
  identity: `manual:${id}`,
  row_number: 0,
  referral_date: '2026-04-01',
  patient_id: '0012',
  patient_key: '12',
  medical_institution_id: '00000000-0000-4000-8000-000000000003',
  institution_code: null,
  institution_name: null,
  from_department: null,
  from_doctor: null,
  to_department: '外科',
  own_department_id: surgery,
  to_doctor: null,
  purpose: null,
  first_visit: null,
  source_id: null,
};
const command = {
  type: 'EnterReferral' as const,
  id,
  referral,
  ownDepartmentIds: new Set([surgery]),
  today: '2026-12-01',
};

describe('referral entry', () => {
  it('enters the referral', () => {
    given(referralEntryDecider)
      .when(command)
      .then([{ type: 'ReferralEntered', data: { referral_id: id, referral } }]);
  });
  it('refuses a department that is not one of the tenant’s own', () => {
    given(referralEntryDecider)
      .when({ ...command, ownDepartmentIds: new Set<string>() })
      .thenRejected(invalid({ field: 'own_department_id', message: '自院の診療科が見つかりません' }));
  });
  it('refuses a date after today (Japan), a referral or a reverse referral, entered or corrected; today is fine', () => {
    given(referralEntryDecider)
      .when({ ...command, referral: { ...referral, referral_date: '2026-12-02' } })
      .thenRejected(invalid({ field: 'referral_date', message: '紹介日に今日より後の日付は入力できません' }));
    given(referralEntryDecider)
      .when({ ...command, referral: { ...referral, referral_date: '2026-12-01' } })
      .then([
        { type: 'ReferralEntered', data: { referral_id: id, referral: { ...referral, referral_date: '2026-12-01' } } },
      ]);
    given(referralEntryDecider, [{ type: 'ReferralEntered', data: { referral_id: id, referral } }])
      .when({ ...command, type: 'UpdateReferral', referral: { ...referral, referral_date: '2027-12-01' } })
      .thenRejected(invalid({ field: 'referral_date', message: '紹介日に今日より後の日付は入力できません' }));
    const reverseReferral = {
      identity: `manual:${id}`,
      row_number: 0,
      reverse_referral_date: '2099-01-01',
      patient_id: '0012',
      patient_key: '12',
      medical_institution_id: referral.medical_institution_id,
      institution_code: null,
      institution_name: null,
      own_department: null,
      own_department_id: null,
      source_id: null,
    };
    given(referralEntryDecider)
      .when({ type: 'EnterReverseReferral', id, reverseReferral, ownDepartmentIds: new Set(), today: '2026-12-01' })
      .thenRejected(invalid({ field: 'reverse_referral_date', message: '逆紹介日に今日より後の日付は入力できません' }));
  });
  it('writes nothing for an entry already made', () => {
    given(referralEntryDecider, [{ type: 'ReferralEntered', data: { referral_id: id, referral } }])
      .when(command)
      .then([]);
  });
});
