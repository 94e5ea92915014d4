import {
  ReferralFact as ReferralFactSchema,
  ReverseReferralFact as ReverseReferralFactSchema,
  type ReferralFact,
  type ReverseReferralFact,
} from '@renkei/domain';

/**
 * The `content` of a referral's and of a reverse referral's row: what a re-upload compares, the record
 * without its row number, as `stableJson` writes it (keys sorted, undefined left out). `JSON.stringify`
 * with the sorted key list writes the same for these flat records (the events' schemas strip any other
 * key) without sorting each record's entries again: the generic `stableJson` was a fifth of the
 * projection's per-row CPU (docs/benchmarks.md, issue 12, 2026-11-25).
 */
const sortedKeys = (shape: object) =>
  Object.keys(shape)
    .filter((k) => k !== 'row_number')
    .sort();
const referralKeys = sortedKeys(ReferralFactSchema.shape);
const reverseKeys = sortedKeys(ReverseReferralFactSchema.shape);

export const referralContent = (fact: ReferralFact): string => JSON.stringify(fact, referralKeys);
export const reverseReferralContent = (fact: ReverseReferralFact): string => JSON.stringify(fact, reverseKeys);
