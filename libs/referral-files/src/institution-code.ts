import {
  computeInstitutionCheckDigit,
  isValidInstitutionCode,
  withSpreadsheetZeroRestored,
} from '@renkei/institution-master';

export type InstitutionCodeResult =
  | { ok: true; code: string }
  | {
      ok: false;
      reason: string;
      /** The code as written (NFKC, without hyphens and spaces): kept on the row, so it can be listed and matched by hand. */
      written: string;
      /**
       * 10-digit codes a 7-digit code may stand for when the prefecture is unknown (each prefecture and
       * 点数表 whose check digit fits): one of them that the master holds can still identify the institution.
       */
      candidates: string[];
    };

/** JIS prefecture codes 01–47. */
const prefectureCodes = Array.from({ length: 47 }, (_, i) => String(i + 1).padStart(2, '0'));

/**
 * Reads a 医療機関コード from a list: 10 digits (都道府県 + 点数表 + 郡市区 + 番号 + 検証番号) or the
 * 7-digit form (郡市区 + 番号 + 検証番号) that omits the prefecture and 点数表. The check digit is
 * computed over all nine leading digits (MHLW 設定要領 別添2), so a 7-digit code can only be verified
 * within a prefecture: it is completed with `prefectureCode` and 点数表 1 (医科), else 3 (歯科), and
 * answered as the full 10-digit code. Hyphens, spaces and full-width digits are tolerated, and so is a code of
 * the prefectures 01–09 that a spreadsheet stripped of its leading zero (nine digits that verify). A code that
 * cannot be verified is answered with the reason, the code as written and, for a 7-digit code without
 * a prefecture, the codes it may stand for: the row is not refused for it (the caller falls back to the name).
 */
export function parseInstitutionCode(text: string, prefectureCode: number | undefined): InstitutionCodeResult {
  const digits = withSpreadsheetZeroRestored(text.normalize('NFKC').replace(/[\s\-‐－]/g, ''));
  const fail = (reason: string, candidates: string[] = []): InstitutionCodeResult => ({
    ok: false,
    reason,
    written: digits,
    candidates,
  });
  if (digits.length === 10 && /^\d{10}$/.test(digits)) {
    return isValidInstitutionCode(digits)
      ? { ok: true, code: digits }
      : fail(`医療機関コード「${text}」の検証番号が正しくありません`);
  }
  if (digits.length === 7 && /^\d{7}$/.test(digits)) {
    const completions = (pref: string) =>
      ['1', '3']
        .map((table) => pref + table + digits.slice(0, 6))
        .filter((first9) => computeInstitutionCheckDigit(first9) === Number(digits[6]));
    if (prefectureCode === undefined) {
      return fail(
        `7桁の医療機関コード「${text}」は都道府県が分からないため検証できません`,
        prefectureCodes.flatMap(completions).map((first9) => first9 + digits[6]),
      );
    }
    const pref = String(prefectureCode).padStart(2, '0');
    const [first9] = completions(pref);
    if (first9 !== undefined) return { ok: true, code: first9 + digits[6] };
    return fail(
      `医療機関コード「${text}」の検証番号が正しくありません（7桁のコードは都道府県番号${pref}として検証します）`,
    );
  }
  return fail(`医療機関コード「${text}」は7桁または10桁の数字ではありません`);
}
