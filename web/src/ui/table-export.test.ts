import { describe, expect, it } from 'vitest';
import { csvBytes, encodeShiftJis, toCsv, xlsxBytes, type ExportTable } from './table-export.ts';

const table: ExportTable = {
  name: '紹介元ランキング',
  columns: [
    { key: 'name', label: '医療機関' },
    { key: 'count', label: '紹介件数' },
    { key: 'change', label: '増減' },
  ],
  rows: [
    { name: '=HYPERLINK("x")', count: 12, change: -3 },
    { name: '駿河クリニック, 本院', count: 4, change: null },
    { name: '@evil', count: 0, change: 1 },
    { name: '+81', count: 1, change: 0 },
    { name: '-a', count: 2, change: 2 },
  ],
};

describe('table export', () => {
  it('neutralises text cells a spreadsheet would read as formulas, keeps numbers (negative too) as numbers', () => {
    const lines = toCsv(table).split('\r\n');
    expect(lines[0]).toBe('医療機関,紹介件数,増減');
    expect(lines[1]).toBe(`"'=HYPERLINK(""x"")",12,-3`);
    expect(lines[2]).toBe('"駿河クリニック, 本院",4,');
    expect(lines[3]).toBe("'@evil,0,1");
    expect(lines[4]).toBe("'+81,1,0");
    expect(lines[5]).toBe("'-a,2,2");
  });

  it('writes UTF-8 with a BOM by default', () => {
    const bytes = csvBytes(table, 'utf-8');
    expect([...bytes.slice(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(new TextDecoder().decode(bytes.slice(3))).toBe(toCsv(table));
  });

  it('writes Shift_JIS on request, round-tripping through a Shift_JIS decoder', () => {
    const bytes = csvBytes(table, 'shift_jis');
    expect(new TextDecoder('shift_jis').decode(bytes)).toBe(toCsv(table));
    expect([...encodeShiftJis('あ①ｱ')]).toEqual([0x82, 0xa0, 0x87, 0x40, 0xb1]);
    // 髙 (IBM extension) is encoded at 0xFB 0xFC, not the NEC-selected 0xEE 0xE0.
    expect([...encodeShiftJis('髙')]).toEqual([0xfb, 0xfc]);
    expect([...encodeShiftJis('😀')]).toEqual([0x3f]);
  });

  it('writes an Excel sheet whose numbers read back as numbers', async () => {
    const Excel = await import('exceljs');
    const workbook = new Excel.Workbook();
    await workbook.xlsx.load(await xlsxBytes(table));
    const sheet = workbook.worksheets[0]!;
    expect(sheet.name).toBe('紹介元ランキング');
    expect(sheet.getRow(1).values).toEqual([undefined, '医療機関', '紹介件数', '増減']);
    expect(sheet.getRow(2).getCell(2).value).toBe(12);
    expect(sheet.getRow(2).getCell(3).value).toBe(-3);
    expect(sheet.getRow(3).getCell(1).value).toBe('駿河クリニック, 本院');
    expect(sheet.getRow(3).getCell(3).value).toBeNull();
  });
});
