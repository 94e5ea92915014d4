import { describe, expect, it } from 'vitest';
import { buildInstitutionCode } from '@renkei/institution-master';
import { parseInstitutionCode } from './institution-code.ts';

describe('parseInstitutionCode', () => {
  it('verifies the check digit of a 10-digit code (MHLW example 3410712362)', () => {
    expect(parseInstitutionCode('3410712362', undefined)).toEqual({ ok: true, code: '3410712362' });
    expect(parseInstitutionCode('34-1-07-1236-2', undefined)).toEqual({ ok: true, code: '3410712362' });
    const bad = parseInstitutionCode('3410712363', undefined);
    expect(bad.ok).toBe(false);
    expect(!bad.ok && bad.reason).toContain('検証番号が正しくありません');
  });

  it('completes a 7-digit code with the prefecture and verifies it', () => {
    expect(parseInstitutionCode('０７１２３６２', 34)).toEqual({ ok: true, code: '3410712362' });
    expect(parseInstitutionCode('0712362', 13).ok).toBe(false);
    const unknown = parseInstitutionCode('0712362', undefined);
    expect(!unknown.ok && unknown.reason).toContain('都道府県が分からない');
  });

  it('answers a code it cannot verify with the code as written and, for 7 digits without a prefecture, its candidates', () => {
    expect(parseInstitutionCode('34-1071-2363', undefined)).toMatchObject({
      ok: false,
      written: '3410712363',
      candidates: [],
    });
    expect(parseInstitutionCode('0712362', 13)).toMatchObject({ ok: false, written: '0712362', candidates: [] });
    const unknown = parseInstitutionCode('0712362', undefined);
    if (unknown.ok) throw new Error('expected a failure');
    // Every candidate is a valid 10-digit code ending in the 7 digits, and the MHLW example is one of them.
    expect(unknown.candidates).toContain('3410712362');
    for (const c of unknown.candidates) {
      expect(c).toMatch(/^\d{2}[13]0712362$/);
      expect(parseInstitutionCode(c, undefined)).toEqual({ ok: true, code: c });
    }
    expect(unknown.candidates.length).toBeLessThan(94);
  });

  it('reads a code of 北海道–栃木 that a spreadsheet stripped of its leading zero, when the zero-padded code verifies', () => {
    const sapporo = buildInstitutionCode({
      prefectureCode: 1,
      scoreTable: 1,
      districtNumber: 1,
      institutionNumber: 1234,
    });
    expect(sapporo).toMatch(/^01/);
    expect(parseInstitutionCode(sapporo.slice(1), undefined)).toEqual({ ok: true, code: sapporo });
    // Nine digits whose padded form fails its check digit stay what they are: not a code.
    const wrong = `${sapporo.slice(1, 9)}${(Number(sapporo[9]) + 1) % 10}`;
    expect(parseInstitutionCode(wrong, undefined)).toMatchObject({ ok: false, written: wrong });
  });

  it('refuses other lengths', () => {
    const r = parseInstitutionCode('12345', 22);
    expect(!r.ok && r.reason).toBe('医療機関コード「12345」は7桁または10桁の数字ではありません');
  });
});
