import { describe, expect, it } from 'vitest';
import { normalizeTagName } from './tag.events.ts';

describe('normalizeTagName', () => {
  it('makes 全角 and 半角 variants and surrounding spaces the same name', () => {
    expect(normalizeTagName('ＡＢＣ１２３')).toBe(normalizeTagName('ABC123'));
    expect(normalizeTagName('ｶﾞﾝ')).toBe(normalizeTagName('ガン'));
    expect(normalizeTagName('　重点 ')).toBe('重点');
    expect(normalizeTagName('重点 連携')).toBe(normalizeTagName('重点　 連携'));
  });

  it('keeps different names apart', () => {
    expect(normalizeTagName('重点')).not.toBe(normalizeTagName('重要'));
    expect(normalizeTagName('abc')).not.toBe(normalizeTagName('ABC'));
  });
});
