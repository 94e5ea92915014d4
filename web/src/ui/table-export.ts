/** A table as the page shows it, for CSV and Excel files. */
export interface ExportTable {
  /** The file name without extension and the Excel sheet's name. */
  name: string;
  columns: { key: string; label: string }[];
  rows: Record<string, string | number | null>[];
}

export type CsvEncoding = 'utf-8' | 'shift_jis';

// A text cell that a spreadsheet would read as a formula (= + - @, and tab/CR that some readers strip
// before them) gets a leading apostrophe, as the server's CSV exports do. Numbers are written as numbers:
// a negative change is data, not a formula.
function csvCell(value: string | number | null): string {
  if (value === null) return '';
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : '';
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

export function toCsv(table: ExportTable): string {
  const lines = [table.columns.map((c) => csvCell(c.label))];
  for (const row of table.rows) lines.push(table.columns.map((c) => csvCell(row[c.key] ?? null)));
  return lines.map((cells) => cells.join(',')).join('\r\n') + '\r\n';
}

let shiftJisTable: Map<string, number> | undefined;

// Built once from the browser's own Shift_JIS decoder (WHATWG's, i.e. Windows-31J, as the server's cp932),
// so no encoding table ships with the page. Where two codes decode to the same character the WHATWG
// encoder's choice is kept: the NEC-selected IBM rows (lead bytes 0xED, 0xEE) lose to the IBM rows.
function shiftJisCodes(): Map<string, number> {
  if (shiftJisTable) return shiftJisTable;
  const decoder = new TextDecoder('shift_jis', { fatal: true });
  const table = new Map<string, number>();
  const leads: number[] = [];
  for (let b = 0x81; b <= 0xfc; b++) if (b <= 0x9f || b >= 0xe0) leads.push(b);
  const late = new Set([0xed, 0xee]);
  for (const pass of [false, true]) {
    for (const lead of leads) {
      if (late.has(lead) !== pass) continue;
      for (let trail = 0x40; trail <= 0xfc; trail++) {
        if (trail === 0x7f) continue;
        let ch: string;
        try {
          ch = decoder.decode(new Uint8Array([lead, trail]));
        } catch {
          continue;
        }
        if (!table.has(ch)) table.set(ch, (lead << 8) | trail);
      }
    }
  }
  for (let b = 0xa1; b <= 0xdf; b++) table.set(String.fromCharCode(0xff61 + b - 0xa1), b);
  shiftJisTable = table;
  return table;
}

/** Text as Shift_JIS bytes; a character Shift_JIS lacks becomes "?", as the server's exports do. */
export function encodeShiftJis(text: string): Uint8Array {
  const table = shiftJisCodes();
  const out: number[] = [];
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    if (code < 0x80) {
      out.push(code);
      continue;
    }
    const sjis = table.get(ch);
    if (sjis === undefined) out.push(0x3f);
    else if (sjis > 0xff) out.push(sjis >> 8, sjis & 0xff);
    else out.push(sjis);
  }
  return Uint8Array.from(out);
}

/** The CSV file's bytes: UTF-8 with a BOM (Excel then reads it as UTF-8), or Shift_JIS on request. */
export function csvBytes(table: ExportTable, encoding: CsvEncoding): Uint8Array {
  const text = toCsv(table);
  if (encoding === 'shift_jis') return encodeShiftJis(text);
  const body = new TextEncoder().encode(text);
  const out = new Uint8Array(body.length + 3);
  out.set([0xef, 0xbb, 0xbf]);
  out.set(body, 3);
  return out;
}

/**
 * The .xlsx file's bytes: one sheet, a header row, numbers as numbers. exceljs is loaded here, on the first
 * export, so it never weighs on the page's first load.
 */
export async function xlsxBytes(table: ExportTable): Promise<ArrayBuffer> {
  const mod = await import('exceljs');
  // The browser build is a UMD bundle: its namespace arrives as the default export.
  const Excel = ('default' in mod ? mod.default : mod) as typeof import('exceljs');
  const workbook = new Excel.Workbook();
  // Excel refuses these characters in a sheet name and more than 31 characters.
  const sheet = workbook.addWorksheet(table.name.replace(/[\\/?*[\]:]/g, ' ').slice(0, 31));
  sheet.addRow(table.columns.map((c) => c.label)).font = { bold: true };
  for (const row of table.rows) sheet.addRow(table.columns.map((c) => row[c.key] ?? null));
  sheet.columns.forEach((column, i) => {
    column.width = Math.max(10, Math.min(40, [...(table.columns[i]?.label ?? '')].length * 2 + 2));
  });
  return workbook.xlsx.writeBuffer() as Promise<ArrayBuffer>;
}

export function saveFile(bytes: BlobPart, name: string, type: string): void {
  const href = URL.createObjectURL(new Blob([bytes], { type }));
  const a = document.createElement('a');
  a.href = href;
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(href), 10_000);
}

/** Saves the table as a CSV file (`<table name>.csv` unless named). */
export function saveCsv(table: ExportTable, encoding: CsvEncoding, name = `${table.name}.csv`): void {
  saveFile(csvBytes(table, encoding) as BlobPart, name, 'text/csv');
}
