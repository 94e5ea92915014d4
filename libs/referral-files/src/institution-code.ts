import { computeInstitutionCheckDigit, isValidInstitutionCode } from '@renkei/institution-master';

export type InstitutionCodeResult = { ok: true; code: string } | { ok: false; reason: string };

/**
 * Reads a 医療機関コード from a list: 10 digits (都道府県 + 点数表 + 郡市区 + 番号 + 検証番号) or the
 * 7-digit form (郡市区 + 番号 + 検証番号) that omits the prefecture and 点数表. The check digit is
 * computed over all nine leading digits (MHLW 設定要領 別添2), so a 7-digit code can only be verified
 * within a prefecture: it is completed with `prefectureCode` and 点数表 1 (医科), else 3 (歯科), and
 * answered as the full 10-digit code. Hyphens, spaces and full-width digits are tolerated.
 */
export function parseInstitutionCode(text: string, prefectureCode: number | undefined): InstitutionCodeResult {
  const digits = text.normalize('NFKC').replace(/[\s\-‐－]/g, '');
  if (digits.length === 10 && /^\d{10}$/.test(digits)) {
    return isValidInstitutionCode(digits)
      ? { ok: true, code: digits }
      : { ok: false, reason: `医療機関コード「${text}」の検証番号が正しくありません` };
  }
  if (digits.length === 7 && /^\d{7}$/.test(digits)) {
    if (prefectureCode === undefined) {
      return { ok: false, reason: `7桁の医療機関コード「${text}」は都道府県が分からないため検証できません` };
    }
    const pref = String(prefectureCode).padStart(2, '0');
    for (const table of ['1', '3']) {
      const first9 = pref + table + digits.slice(0, 6);
      if (computeInstitutionCheckDigit(first9) === Number(digits[6])) return { ok: true, code: first9 + digits[6] };
    }
    return {
      ok: false,
      reason: `医療機関コード「${text}」の検証番号が正しくありません（7桁のコードは都道府県番号${pref}として検証します）`,
    };
  }
  return { ok: false, reason: `医療機関コード「${text}」は7桁または10桁の数字ではありません` };
}
