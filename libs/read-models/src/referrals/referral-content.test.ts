import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { stableJson, type ReferralFact, type ReverseReferralFact } from '@renkei/domain';
import { referralContent, reverseReferralContent } from './referral-content.ts';

const text = fc.option(fc.string({ unit: 'grapheme' }), { nil: null });
const referral: fc.Arbitrary<ReferralFact> = fc.record({
  identity: fc.string({ unit: 'grapheme' }),
  row_number: fc.nat(),
  referral_date: fc.constant('2024-05-01'),
  patient_id: fc.string(),
  patient_key: fc.string(),
  medical_institution_id: fc.option(fc.uuid(), { nil: null }),
  institution_code: text,
  institution_name: text,
  from_department: text,
  from_doctor: text,
  to_department: text,
  own_department_id: fc.option(fc.uuid(), { nil: null }),
  to_doctor: text,
  purpose: text,
  first_visit: fc.option(fc.boolean(), { nil: null }),
  source_id: text,
});
const reverse: fc.Arbitrary<ReverseReferralFact> = fc.record({
  identity: fc.string({ unit: 'grapheme' }),
  row_number: fc.nat(),
  reverse_referral_date: fc.constant('2024-05-01'),
  patient_id: fc.string(),
  patient_key: fc.string(),
  medical_institution_id: fc.option(fc.uuid(), { nil: null }),
  institution_code: text,
  institution_name: text,
  own_department: text,
  own_department_id: fc.option(fc.uuid(), { nil: null }),
  source_id: text,
});

/** What the projection wrote before: the record without its row number, through the generic stableJson. */
const before = (fact: { row_number: number }) => {
  const { row_number: _rowNumber, ...content } = fact;
  return stableJson(content);
};

describe('referral row content', () => {
  it('is what stableJson writes for the record without its row number (rows written before compare equal)', () => {
    fc.assert(
      fc.property(referral, (f) => {
        expect(referralContent(f)).toBe(before(f));
      }),
    );
    fc.assert(
      fc.property(reverse, (f) => {
        expect(reverseReferralContent(f)).toBe(before(f));
      }),
    );
  });

  it('changes with any field but the row number', () => {
    fc.assert(
      fc.property(referral, fc.nat(), (f, n) => {
        expect(referralContent({ ...f, row_number: n })).toBe(referralContent(f));
        expect(referralContent({ ...f, to_department: `${f.to_department ?? ''}x` })).not.toBe(referralContent(f));
      }),
    );
  });
});
