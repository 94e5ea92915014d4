import { describe, expect, it } from 'vitest';
import {
  buildInstitutionCode,
  computeInstitutionCheckDigit,
  isValidInstitutionCode,
  withSpreadsheetZeroRestored,
} from './institution-code.ts';

describe('医療機関コード check digit', () => {
  it('matches the worked example of the 設定要領 (34/1/07/1236 → 2)', () => {
    expect(computeInstitutionCheckDigit('341071236')).toBe(2);
    expect(isValidInstitutionCode('3410712362')).toBe(true);
  });

  it('rejects a wrong check digit, wrong length, non-digits and unknown prefectures', () => {
    expect(isValidInstitutionCode('3410712363')).toBe(false);
    expect(isValidInstitutionCode('341071236')).toBe(false);
    expect(isValidInstitutionCode('34107123a2')).toBe(false);
    expect(
      isValidInstitutionCode(
        buildInstitutionCode({ prefectureCode: 48, scoreTable: 1, districtNumber: 1, institutionNumber: 1000 }),
      ),
    ).toBe(false);
  });

  it('detects every single-digit substitution in the body', () => {
    const code = buildInstitutionCode({
      prefectureCode: 22,
      scoreTable: 1,
      districtNumber: 5,
      institutionNumber: 1234,
    });
    for (let i = 0; i < 9; i++) {
      for (let d = 0; d <= 9; d++) {
        if (String(d) === code[i]) continue;
        const changed = code.slice(0, i) + d + code.slice(i + 1);
        expect(isValidInstitutionCode(changed)).toBe(false);
      }
    }
  });

  it('builds codes that validate', () => {
    expect(
      isValidInstitutionCode(
        buildInstitutionCode({ prefectureCode: 1, scoreTable: 3, districtNumber: 99, institutionNumber: 3001 }),
      ),
    ).toBe(true);
  });
});

describe('a code a spreadsheet stripped of its leading zero', () => {
  it('gets its zero back when the nine digits are a code of 01–09 with it, and stays as it is otherwise', () => {
    const aomori = buildInstitutionCode({ prefectureCode: 2, scoreTable: 3, districtNumber: 5, institutionNumber: 77 });
    expect(withSpreadsheetZeroRestored(aomori.slice(1))).toBe(aomori);
    expect(withSpreadsheetZeroRestored(aomori)).toBe(aomori);
    const wrongCheck = `${aomori.slice(1, 9)}${(Number(aomori[9]) + 1) % 10}`;
    expect(withSpreadsheetZeroRestored(wrongCheck)).toBe(wrongCheck);
    expect(withSpreadsheetZeroRestored('12345')).toBe('12345');
    expect(withSpreadsheetZeroRestored('')).toBe('');
  });
});
