import { Readable } from 'node:stream';
import iconv from 'iconv-lite';
import { describe, expect, it } from 'vitest';
import { countTextLines, readTable, type TableFormat } from './table-reader.ts';
import { writeFixture } from './test-files.ts';

async function rows(source: string | Readable) {
  let format: TableFormat | undefined;
  const out = [];
  for await (const row of readTable(source, { onFormat: (f) => (format = f) })) out.push(row);
  return { rows: out, format };
}

describe('readTable', () => {
  const lines = [
    ['紹介日', '医療機関名'],
    ['R6.4.1', '髙橋医院'],
  ];

  it('reads Shift_JIS, tab, CRLF', async () => {
    const r = await rows(writeFixture(lines));
    expect(r.format).toEqual({ encoding: 'shift_jis', delimiter: '\t' });
    expect(r.rows.map((x) => x.cells)).toEqual(lines);
  });

  it('reads UTF-8 with a BOM, comma, LF', async () => {
    const r = await rows(writeFixture(lines, { encoding: 'utf8', bom: true, delimiter: ',', eol: '\n' }));
    expect(r.format).toEqual({ encoding: 'utf8', delimiter: ',' });
    expect(r.rows.map((x) => x.cells)).toEqual(lines);
  });

  it('numbers rows by the line they start on, skipping blank lines, honouring quoted line breaks', async () => {
    const file = writeFixture(['a,b', '', '"x, y","1行目', '2行目"', '  ', 'c,"say ""hi"""'], { delimiter: ',' });
    const r = await rows(file);
    expect(r.rows).toEqual([
      { rowNumber: 1, cells: ['a', 'b'] },
      { rowNumber: 3, cells: ['x, y', '1行目\r\n2行目'.replace('\r', '')] },
      { rowNumber: 6, cells: ['c', 'say "hi"'] },
    ]);
  });

  it('reads UTF-16 with its BOM (Excel’s 「Unicode テキスト」), little and big endian, a character split across chunks', async () => {
    const text = '\ufeff紹介日\t医療機関名\r\nR6.4.1\t上野医院\r\n';
    const le = Buffer.from(text, 'utf16le');
    // Split inside a character: the decoder keeps the half.
    const r = await rows(Readable.from([le.subarray(0, 5), le.subarray(5)]));
    expect(r.format).toEqual({ encoding: 'utf16le', delimiter: '\t' });
    expect(r.rows.map((x) => x.cells)).toEqual([lines[0], ['R6.4.1', '上野医院']]);
    const be = Buffer.from(le).swap16();
    const b = await rows(Readable.from([be]));
    expect(b.format).toEqual({ encoding: 'utf16be', delimiter: '\t' });
    expect(b.rows.map((x) => x.cells)).toEqual([lines[0], ['R6.4.1', '上野医院']]);
  });

  it('counts a file’s lines as an editor does, in UTF-16 by 16-bit line ends (上 is the bytes 0A 4E)', async () => {
    const utf16 = Buffer.from('\ufeff上\t上\r\n上\r\n上', 'utf16le');
    expect(await countTextLines(Readable.from([utf16.subarray(0, 1), utf16.subarray(1, 7), utf16.subarray(7)]))).toBe(
      3,
    );
    expect(await countTextLines(Readable.from([Buffer.from(utf16).swap16()]))).toBe(3);
    expect(await countTextLines(Readable.from([iconv.encode('上\r\n上\r\n', 'cp932')]))).toBe(2);
    expect(await countTextLines(Readable.from([Buffer.from('a')]))).toBe(1);
    expect(await countTextLines(Readable.from([]))).toBe(0);
  });

  it('reads a Readable and a multi-byte character split across chunks', async () => {
    const bytes = iconv.encode('患者\t髙橋\r\n', 'cp932');
    const chunks = [bytes.subarray(0, 3), bytes.subarray(3)];
    const r = await rows(Readable.from(chunks));
    expect(r.rows[0]!.cells).toEqual(['患者', '髙橋']);
  });
});
