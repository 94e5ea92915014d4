/**
 * Legal-entity prefixes that users leave out when they search (「さくら病院」 must find
 * 「医療法人社団さくら会 さくら病院」). Longest first so 医療法人社団 wins over 医療法人.
 */
const legalEntityPrefixes = [
  '地方独立行政法人',
  '独立行政法人',
  '社会医療法人財団',
  '社会医療法人社団',
  '社会医療法人',
  '特定医療法人',
  '医療法人社団',
  '医療法人財団',
  '医療法人',
  '一般財団法人',
  '公益財団法人',
  '一般社団法人',
  '公益社団法人',
  '社会福祉法人',
  '学校法人',
  '国立大学法人',
  '宗教法人',
  '(医)',
  '(医社)',
  '(医財)',
  '(社医)',
  '(財)',
  '(社)',
  '(福)',
  '(学)',
  '(独)',
];
// NFKC turns 全角 parentheses into ASCII ones, and ㈱-style ligatures into (株), before this runs.
const prefixPattern = new RegExp(legalEntityPrefixes.map((p) => p.replace(/[()]/g, (c) => `\\${c}`)).join('|'), 'g');

/** ひらがな (U+3041–U+3096) → カタカナ (U+30A1–U+30F6). */
function hiraganaToKatakana(s: string): string {
  return s.replace(/[\u3041-\u3096]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 0x60));
}

/**
 * The form both the stored search text and the user's keyword are reduced to: NFKC (全角英数/半角カナ),
 * lower case, ひらがな→カタカナ, ヶ/ケ unified, legal-entity prefixes removed, whitespace and
 * middle dots/hyphen variants dropped. Matching is then a substring test on this form.
 */
export function normalizeKeyword(input: string): string {
  let s = input.normalize('NFKC').toLowerCase();
  s = hiraganaToKatakana(s);
  s = s.replace(/ヶ/g, 'ケ').replace(/ヵ/g, 'カ');
  s = s.replace(prefixPattern, '');
  s = s.replace(/[\s・\-‐‑–—―−]/g, '');
  return s;
}

/** The stored search column of an institution: every searchable field, normalised, joined. */
export function buildSearchText(fields: { code: string; name: string; kana: string; address: string }): string {
  return [fields.code, fields.name, fields.kana, fields.address].map(normalizeKeyword).join('\u0001');
}
