import { listColumns, type MappedListType } from './data-upload.schemas.ts';

/**
 * How a list's header names are read: the server's parser (libs/referral-files) detects a header row and
 * maps a file without a saved mapping by these; the mapping step of /data_uploads proposes the same
 * mapping before the owner saves one. One table for both, so the screen proposes what the import reads.
 */

type ListColumn<K extends MappedListType> = (typeof listColumns)[K]['columns'][number];

/**
 * Names seen in hospital exports, per canonical column, most specific first. Matching is on the
 * normalised name (see normalizeHeader), so 全角/半角, spaces and a trailing (西暦) do not matter.
 */
const referralSynonyms: Record<ListColumn<'referral'>, readonly string[]> = {
  紹介日: [
    '紹介日',
    '紹介年月日',
    '紹介日付',
    '紹介受付日',
    '紹介状日付',
    '紹介状作成日',
    '紹介日時',
    '受付日',
    '受付年月日',
  ],
  患者ID: ['患者ID', '患者番号', 'カルテ番号', 'カルテNO', 'カルテ№', '患者コード', '患者NO', '診察券番号', 'ID'],
  紹介元医療機関コード: [
    '紹介元医療機関コード',
    '紹介元コード',
    '紹介元機関コード',
    '紹介元病院コード',
    '紹介元施設コード',
    '医療機関コード',
    '機関コード',
  ],
  紹介元医療機関名: [
    '紹介元医療機関名',
    '紹介元医療機関',
    '紹介元医療機関名称',
    '紹介元病院名',
    '紹介元施設名',
    '紹介元医院名',
    '紹介元名称',
    '紹介元',
    '医療機関名',
    '病院名',
  ],
  紹介元診療科: ['紹介元診療科', '紹介元診療科名', '紹介元科', '紹介元科名'],
  紹介元医師名: ['紹介元医師名', '紹介元医師', '紹介元ドクター', '紹介医師名', '紹介医師', '紹介医'],
  紹介先診療科: [
    '紹介先診療科',
    '紹介先診療科名',
    '紹介先科',
    '受診科',
    '受診診療科',
    '当院診療科',
    '自院診療科',
    '依頼先診療科',
    '診療科',
    '診療科名',
  ],
  紹介先医師名: ['紹介先医師名', '紹介先医師', '担当医師名', '担当医師', '担当医', '主治医', '受診医', '当院医師'],
  紹介目的: ['紹介目的', '紹介理由', '紹介内容', '目的', '傷病名', '主訴'],
  初診: ['初診', '初診区分', '初診フラグ', '初診有無', '初再診', '初再診区分'],
  管理番号: ['管理番号', '紹介番号', '紹介ID', '文書番号', '受付番号'],
};

const reverseReferralSynonyms: Record<ListColumn<'reverse_referral'>, readonly string[]> = {
  逆紹介日: ['逆紹介日', '逆紹介年月日', '逆紹介日付', '逆紹介状日付', '紹介日', '紹介年月日', '作成日', '発行日'],
  患者ID: referralSynonyms.患者ID,
  逆紹介先医療機関コード: [
    '逆紹介先医療機関コード',
    '逆紹介先コード',
    '逆紹介先機関コード',
    '紹介先医療機関コード',
    '紹介先コード',
    '医療機関コード',
    '機関コード',
  ],
  逆紹介先医療機関名: [
    '逆紹介先医療機関名',
    '逆紹介先医療機関',
    '逆紹介先名称',
    '逆紹介先病院名',
    '逆紹介先',
    '紹介先医療機関名',
    '紹介先医療機関',
    '紹介先病院名',
    '紹介先',
    '医療機関名',
    '病院名',
  ],
  自院診療科: ['自院診療科', '当院診療科', '診療科', '診療科名', '紹介元診療科', '依頼科', '担当科', '発行科'],
  管理番号: ['管理番号', '逆紹介番号', '逆紹介ID', '文書番号'],
};

/** NFKC, upper case, no spaces or punctuation, a trailing note in brackets dropped: 紹介日（西暦） → 紹介日. */
export function normalizeHeader(name: string): string {
  return name
    .normalize('NFKC')
    .toUpperCase()
    .replace(/[([<][^)\]>]*[)\]>]$/, '')
    .replace(/[\s_・:.\-/]/g, '');
}

function synonymsOf(kind: MappedListType): Record<string, readonly string[]> {
  return kind === 'referral' ? referralSynonyms : reverseReferralSynonyms;
}

/** True when a header cell names some canonical column of either list (used to detect a header row). */
export function isKnownHeader(name: string): boolean {
  const n = normalizeHeader(name);
  if (n === '') return false;
  for (const table of [referralSynonyms, reverseReferralSynonyms] as Record<string, readonly string[]>[])
    for (const names of Object.values(table)) if (names.some((s) => normalizeHeader(s) === n)) return true;
  return false;
}

/**
 * Proposes a mapping from a file's header names: an exact canonical name first, then synonyms in
 * order of specificity; each file column is used at most once. Unmatched canonical columns are left out.
 */
export function suggestMapping(
  headerNames: readonly string[],
  kind: MappedListType = 'referral',
): Record<string, string> {
  const normalized = headerNames.map(normalizeHeader);
  const used = new Set<number>();
  const mapping: Record<string, string> = {};
  const synonyms = synonymsOf(kind);
  const columns = listColumns[kind].columns;
  // Rank by synonym position so 紹介元医療機関名 takes 紹介元病院名 before 医療機関名 is offered to it.
  const maxRank = Math.max(...Object.values(synonyms).map((s) => s.length));
  for (let rank = 0; rank < maxRank; rank++) {
    for (const column of columns) {
      if (mapping[column] !== undefined) continue;
      const synonym = synonyms[column]![rank];
      if (synonym === undefined) continue;
      const target = normalizeHeader(synonym);
      const index = normalized.findIndex((n, i) => n === target && !used.has(i));
      if (index !== -1) {
        used.add(index);
        mapping[column] = headerNames[index]!;
      }
    }
  }
  return mapping;
}
