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

// The record copied in sorted key order and written without a replacer: JSON.stringify's fast path for
// plain objects; with the key list as replacer it was ~1 s per 100,000 rows of a rebuild on a loaded
// machine. Undefined values are left out by both.
const inOrder = (keys: readonly string[]) => (fact: object) => {
  const ordered: Record<string, unknown> = {};
  for (const k of keys) ordered[k] = (fact as Record<string, unknown>)[k];
  return JSON.stringify(ordered);
};
export const referralContent: (fact: ReferralFact) => string = inOrder(referralKeys);
export const reverseReferralContent: (fact: ReverseReferralFact) => string = inOrder(reverseKeys);
