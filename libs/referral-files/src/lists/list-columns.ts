import { listColumns as contractColumns } from '@renkei/contracts';

/**
 * Canonical columns of the 紹介 and 逆紹介 lists: the contract's, which the mapping step offers, so the
 * parser reads by exactly the names the screen maps onto.
 */
export const referralColumns = contractColumns.referral.columns;
export type ReferralColumn = (typeof referralColumns)[number];

export const reverseReferralColumns = contractColumns.reverse_referral.columns;
export type ReverseReferralColumn = (typeof reverseReferralColumns)[number];

export type ListKind = 'referral' | 'reverse_referral';

/**
 * canonical column → a header name of the file, or a 1-based column position (3 = 3列目), as saved
 * mapping profiles and uploads carry it: a list without a header row can only be mapped by position.
 */
export type ListMapping<C extends string> = Partial<Record<C, number | string>>;

export function listColumns(kind: ListKind): readonly string[] {
  return kind === 'referral' ? referralColumns : reverseReferralColumns;
}

// The header names' table and the mapping it proposes are the contract's: the mapping step of the web
// proposes what this parser reads.
export { isKnownHeader, normalizeHeader, suggestMapping } from '@renkei/contracts';
