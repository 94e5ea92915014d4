import { describe, expect, it } from 'vitest';
import { findUnusableText, hasUnusableCharacter } from './text-rules.ts';

describe('hasUnusableCharacter', () => {
  it('refuses NUL, other C0 controls, DEL and lone surrogates', () => {
    for (const text of ['a\u0000b', '\u0001', 'x\u001Fy', '\u007F', '\uD800', 'a\uDC00', '\uDBFFz', '\uDC00\uD800']) {
      expect(hasUnusableCharacter(text), JSON.stringify(text)).toBe(true);
    }
  });

  it('accepts tab, line breaks, Japanese and surrogate pairs', () => {
    for (const text of ['行1\r\n行2\t列', '医療機関', '𠮷野家', '😀', '', 'plain']) {
      expect(hasUnusableCharacter(text), JSON.stringify(text)).toBe(false);
    }
  });
});

describe('findUnusableText', () => {
  it('names the path of every offending string and key', () => {
    const body = { name: 'ok', tasks: [{ title: 'a\u0000' }, { title: 'ok' }], labels: { 'k\u0000': 'v' }, n: 1 };
    expect(findUnusableText(body)).toEqual([
      ['tasks', 0, 'title'],
      ['labels', 'k\u0000'],
    ]);
    expect(findUnusableText('\uD800')).toEqual([[]]);
    expect(findUnusableText(Buffer.from([0]))).toEqual([]);
  });

  it('walks any depth without recursion', () => {
    let deep: unknown = '\u0000';
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(findUnusableText(deep)).toHaveLength(1);
  });
});
