import { describe, expect, it } from 'vitest';
import { readFileHead, sameNameMapping } from './file-head.ts';

const sjis = (text: string) => {
  // 紹介日 in Shift_JIS, followed by ASCII: enough to prove the fallback decoding.
  const bytes = [0x8f, 0xd0, 0x89, 0xee, 0x93, 0xfa, ...new TextEncoder().encode(text)];
  return new Blob([new Uint8Array(bytes)]);
};

describe('readFileHead', () => {
  it('reads a UTF-8 header and rows, quoted commas kept', async () => {
    const head = await readFileHead(new Blob(['\uFEFF紹介年月日,カルテ番号,紹介元\r\nR6.4.1,123,"A,B医院"\r\n']));
    expect(head).toEqual({ header: ['紹介年月日', 'カルテ番号', '紹介元'], rows: [['R6.4.1', '123', 'A,B医院']] });
  });

  it('falls back to Shift_JIS and tabs, and sees a file without a header', async () => {
    expect((await readFileHead(sjis('\tID\n2024/04/01\t1\n'))).header).toEqual(['紹介日', 'ID']);
    expect((await readFileHead(new Blob(['2024/04/01,1\n']))).header).toBeNull();
  });
});

describe('sameNameMapping', () => {
  it('maps columns of the same name only', () => {
    expect(sameNameMapping(['紹介日', '患者ID'], ['紹介日', '患者ＩＤ', 'その他'])).toEqual({
      紹介日: '紹介日',
      患者ID: '患者ＩＤ',
    });
  });
});
