/** Canonical columns of the 紹介 list; a hospital's own export is mapped onto them. */
export const referralColumns = [
  '紹介日',
  '患者ID',
  '紹介元医療機関コード',
  '紹介元医療機関名',
  '紹介元診療科',
  '紹介元医師名',
  '紹介先診療科',
  '紹介先医師名',
  '紹介目的',
  '初診',
  '管理番号',
] as const;
export type ReferralColumn = (typeof referralColumns)[number];

/** Canonical columns of the 逆紹介 list. */
export const reverseReferralColumns = [
  '逆紹介日',
  '患者ID',
  '逆紹介先医療機関コード',
  '逆紹介先医療機関名',
  '自院診療科',
  '管理番号',
] as const;
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
