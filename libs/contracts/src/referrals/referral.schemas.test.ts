import { describe, expect, it } from 'vitest';
import { ReferralInput, ReverseReferralInput } from './referral.schemas.ts';

const messages = (result: { success: boolean; error?: { issues: { path: PropertyKey[]; message: string }[] } }) =>
  Object.fromEntries((result.error?.issues ?? []).map((i) => [i.path.join('.'), i.message]));

describe('referrals entered by hand', () => {
  it('ask for the patient ID in Japanese when it is left out, as when it is blank', () => {
    expect(messages(ReferralInput.safeParse({ referral_date: '2026-04-01' }))).toEqual({
      patient_id: '患者IDを入力してください',
    });
    expect(messages(ReferralInput.safeParse({ referral_date: '2026-04-01', patient_id: ' ' }))).toEqual({
      patient_id: '患者IDを入力してください',
    });
    expect(messages(ReverseReferralInput.safeParse({ reverse_referral_date: '2026-04-01' }))).toEqual({
      patient_id: '患者IDを入力してください',
    });
  });
});
