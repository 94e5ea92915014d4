import { Readable } from 'node:stream';
import iconv from 'iconv-lite';
import { describe, expect, it } from 'vitest';
import { readTable, type TableFormat } from './table-reader.ts';
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

  it('reads a Readable and a multi-byte character split across chunks', async () => {
    const bytes = iconv.encode('患者\t髙橋\r\n', 'cp932');
    const chunks = [bytes.subarray(0, 3), bytes.subarray(3)];
    const r = await rows(Readable.from(chunks));
    expect(r.rows[0]!.cells).toEqual(['患者', '髙橋']);
  });
});
