import { describe, expect, it } from 'vitest';
import { buildSearchText, normalizeKeyword } from './normalize.ts';

describe('normalizeKeyword', () => {
  it('makes half-width katakana, full-width letters and hiragana meet', () => {
    expect(normalizeKeyword('ｻｸﾗﾋﾞｮｳｲﾝ')).toBe(normalizeKeyword('サクラビョウイン'));
    expect(normalizeKeyword('さくらびょういん')).toBe(normalizeKeyword('サクラビョウイン'));
    expect(normalizeKeyword('ＡＢＣクリニック')).toBe('abcクリニック');
  });

  it('strips legal-entity prefixes in any common spelling', () => {
    expect(normalizeKeyword('医療法人社団さくら会 さくら病院')).toBe('サクラ会サクラ病院');
    expect(normalizeKeyword('（医）さくら会')).toBe('サクラ会');
    expect(normalizeKeyword('社会医療法人 青葉')).toBe('青葉');
    expect(normalizeKeyword('一般財団法人みどり')).toBe('ミドリ');
  });

  it('keeps the long-vowel mark and unifies ヶ/ケ', () => {
    expect(normalizeKeyword('センター')).toBe('センター');
    expect(normalizeKeyword('袖ヶ浦')).toBe(normalizeKeyword('袖ケ浦'));
  });

  it('builds a search text in which a normalised keyword is a substring', () => {
    const text = buildSearchText({
      code: '2211012340',
      name: '医療法人社団 富士見病院',
      kana: 'ﾌｼﾞﾐﾋﾞｮｳｲﾝ',
      address: '静岡県静岡市葵区追手町1-2',
    });
    expect(text.includes(normalizeKeyword('富士見病院'))).toBe(true);
    expect(text.includes(normalizeKeyword('ふじみびょういん'))).toBe(true);
    expect(text.includes(normalizeKeyword('葵区追手町１－２'))).toBe(true);
    expect(text.includes(normalizeKeyword('横浜'))).toBe(false);
  });
});
