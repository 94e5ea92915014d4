/**
 * 医療機関コード (10 digits): 都道府県番号(2) + 点数表番号(1) + 郡市区番号(2) + 医療機関番号(4) + 検証番号(1).
 * The check digit follows MHLW's 設定要領 (別添２): over the first 9 digits, from the rightmost, weights
 * 2,1,2,1…; two-digit products are folded to their digit sum; check = (10 − sum mod 10) mod 10.
 */
export function computeInstitutionCheckDigit(first9: string): number {
  if (!/^\d{9}$/.test(first9)) throw new Error(`expected 9 digits, got "${first9}"`);
  let sum = 0;
  for (let i = 0; i < 9; i++) {
    const digit = Number(first9[8 - i]);
    const product = digit * (i % 2 === 0 ? 2 : 1);
    sum += product > 9 ? product - 9 : product;
  }
  return (10 - (sum % 10)) % 10;
}

export function isValidInstitutionCode(code: string): boolean {
  if (!/^\d{10}$/.test(code)) return false;
  if (Number(code.slice(0, 2)) < 1 || Number(code.slice(0, 2)) > 47) return false;
  return computeInstitutionCheckDigit(code.slice(0, 9)) === Number(code[9]);
}

/**
 * A code as a spreadsheet hands it back: Excel reads 0110111234 as a number and drops the leading zero of the
 * prefectures 01–09 (北海道 to 栃木), so nine digits whose zero-padded form verifies are that code. Anything
 * else is returned as it is.
 */
export function withSpreadsheetZeroRestored(code: string): string {
  return /^\d{9}$/.test(code) && isValidInstitutionCode(`0${code}`) ? `0${code}` : code;
}

/** Builds a full code from its parts, appending the check digit. */
export function buildInstitutionCode(parts: {
  prefectureCode: number;
  scoreTable: 1 | 3 | 4;
  districtNumber: number;
  institutionNumber: number;
}): string {
  const first9 =
    String(parts.prefectureCode).padStart(2, '0') +
    String(parts.scoreTable) +
    String(parts.districtNumber).padStart(2, '0') +
    String(parts.institutionNumber).padStart(4, '0');
  return first9 + String(computeInstitutionCheckDigit(first9));
}
