import { describe, expect, it } from 'vitest';
import { readFileHead } from './file-head.ts';

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

  it('reads UTF-16 with its BOM (Excel’s 「Unicode テキスト」), little and big endian', async () => {
    const text = '\uFEFF紹介日\t患者ID\t紹介元\r\nR6.4.1\t123\t上野医院\r\n';
    const le = new Uint8Array(text.length * 2);
    for (let i = 0; i < text.length; i++) {
      le[2 * i] = text.charCodeAt(i) & 0xff;
      le[2 * i + 1] = text.charCodeAt(i) >> 8;
    }
    const be = le.map((_, i) => le[i % 2 === 0 ? i + 1 : i - 1]!);
    for (const bytes of [le, be])
      expect(await readFileHead(new Blob([bytes]))).toEqual({
        header: ['紹介日', '患者ID', '紹介元'],
        rows: [['R6.4.1', '123', '上野医院']],
      });
  });

  it('decides the header as the import does: a known name, or no data above a row of data', async () => {
    // A four-digit patient number is data; a first row of words above it is the hospital's own header.
    expect((await readFileHead(new Blob(['受付,番号\n2024/4/1,1234\n']))).header).toEqual(['受付', '番号']);
    // Words above words: no header can be told (the server maps it by position too).
    expect((await readFileHead(new Blob(['みなと内科,内科\nさくら医院,外科\n']))).header).toBeNull();
    // Dates as the import reads them: 2024年4月1日, and patient numbers of three digits.
    expect((await readFileHead(new Blob(['日付,カルテ,病院\n2024年4月1日,123,あおい医院\n']))).header).toEqual([
      '日付',
      'カルテ',
      '病院',
    ]);
    // A known column name is a header whatever follows.
    expect((await readFileHead(new Blob(['紹介元,備考\nみなと内科,\n']))).header).toEqual(['紹介元', '備考']);
  });
});
