import { describe, expect, it } from 'vitest';
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

  it('refuses other lengths', () => {
    const r = parseInstitutionCode('12345', 22);
    expect(!r.ok && r.reason).toBe('医療機関コード「12345」は7桁または10桁の数字ではありません');
  });
});
