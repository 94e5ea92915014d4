import fs from 'node:fs';
import type { Readable } from 'node:stream';
import iconv from 'iconv-lite';

/** A file path or an already opened byte stream (an upload, a test buffer). */
export type FileSource = string | Readable;

export type TextEncoding = 'utf8' | 'shift_jis' | 'utf16le' | 'utf16be';
export type Delimiter = '\t' | ',';

export interface TableRow {
  /** 1-based line number where the record starts, the header line counted, as an editor shows it. */
  rowNumber: number;
  /** Cells trimmed of surrounding white space (full-width space included). */
  cells: string[];
}

export interface TableReadOptions {
  /** Skip sniffing: hospitals sometimes know better than a 64 KiB sample. */
  encoding?: TextEncoding | undefined;
  delimiter?: Delimiter | undefined;
}

export interface TableFormat {
  encoding: TextEncoding;
  delimiter: Delimiter;
}

const sniffBytes = 64 * 1024;

/**
 * A UTF-8 BOM or a sample that decodes as strict UTF-8 means UTF-8; a UTF-16 BOM means UTF-16 (Excel's
 * 「Unicode テキスト」, the way many offices save a sheet as tab-separated text); anything else is Shift_JIS,
 * decoded as cp932 (Windows-31J) because that is what hospital and MHLW tools actually write.
 */
export function sniffEncoding(sample: Buffer, complete: boolean): TextEncoding {
  if (sample[0] === 0xef && sample[1] === 0xbb && sample[2] === 0xbf) return 'utf8';
  if (sample[0] === 0xff && sample[1] === 0xfe) return 'utf16le';
  if (sample[0] === 0xfe && sample[1] === 0xff) return 'utf16be';
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(sample, { stream: !complete });
    return 'utf8';
  } catch {
    return 'shift_jis';
  }
}

/** Tab wins when the first line has at least as many tabs as commas (DPC files are always tab). */
export function sniffDelimiter(firstLine: string): Delimiter {
  let tabs = 0;
  let commas = 0;
  for (let i = 0; i < firstLine.length; i++) {
    const c = firstLine.charCodeAt(i);
    if (c === 9) tabs++;
    else if (c === 44) commas++;
  }
  return tabs > 0 && tabs >= commas ? '\t' : ',';
}

function splitQuoted(record: string, delimiter: string): string[] {
  const cells: string[] = [];
  let cell = '';
  let i = 0;
  let quoted = false;
  while (i < record.length) {
    const ch = record[i]!;
    if (quoted) {
      if (ch === '"') {
        if (record[i + 1] === '"') {
          cell += '"';
          i += 2;
          continue;
        }
        quoted = false;
      } else cell += ch;
    } else if (ch === '"' && cell.trim() === '') {
      quoted = true;
      cell = '';
    } else if (ch === delimiter) {
      cells.push(cell.trim());
      cell = '';
    } else cell += ch;
    i++;
  }
  cells.push(cell.trim());
  return cells;
}

function splitRecord(record: string, delimiter: string): string[] {
  // Fast path: DPC files and most exports never quote; split + trim is several times faster.
  if (record.indexOf('"') === -1) {
    const cells = record.split(delimiter);
    for (let i = 0; i < cells.length; i++) cells[i] = cells[i]!.trim();
    return cells;
  }
  return splitQuoted(record, delimiter);
}

function countQuotes(text: string): number {
  let n = 0;
  for (let i = text.indexOf('"'); i !== -1; i = text.indexOf('"', i + 1)) n++;
  return n;
}

function byteSource(source: FileSource): AsyncIterable<Buffer> {
  return typeof source === 'string'
    ? fs.createReadStream(source, { highWaterMark: 256 * 1024 })
    : (source as AsyncIterable<Buffer>);
}

/** Streams rows one by one; see readTableBatches, which parsers use to save an await per row. */
export async function* readTable(
  source: FileSource,
  options: TableReadOptions & { onFormat?: (format: TableFormat) => void } = {},
): AsyncGenerator<TableRow, void, undefined> {
  for await (const batch of readTableBatches(source, options)) yield* batch;
}

/**
 * Streams a delimited text file as batches of rows (one per chunk read): sniffs the encoding from the first 64 KiB, strips a BOM,
 * splits on LF or CRLF, honours double-quoted cells (embedded delimiters, quotes, line breaks), skips
 * blank lines. Memory stays flat whatever the file size. `onFormat` is called once, before the first row.
 */
export async function* readTableBatches(
  source: FileSource,
  options: TableReadOptions & { onFormat?: (format: TableFormat) => void } = {},
): AsyncGenerator<TableRow[], void, undefined> {
  const iterator = byteSource(source)[Symbol.asyncIterator]();
  try {
    yield* readRows(iterator, options);
  } finally {
    // A caller that stops early (a header preview) must not leave the file open.
    await iterator.return?.();
  }
}

async function* readRows(
  iterator: AsyncIterator<Buffer>,
  options: TableReadOptions & { onFormat?: (format: TableFormat) => void },
): AsyncGenerator<TableRow[], void, undefined> {
  const head: Buffer[] = [];
  let headLength = 0;
  let ended = false;
  while (headLength < sniffBytes) {
    const next = await iterator.next();
    if (next.done) {
      ended = true;
      break;
    }
    const chunk = typeof next.value === 'string' ? Buffer.from(next.value) : next.value;
    head.push(chunk);
    headLength += chunk.length;
  }
  const sample = Buffer.concat(head);
  const encoding = options.encoding ?? sniffEncoding(sample.subarray(0, sniffBytes), ended);
  const decoder = iconv.getDecoder(encoding === 'shift_jis' ? 'cp932' : encoding);
  let delimiter: Delimiter | undefined = options.delimiter;

  let pending = '';
  let lineNumber = 0;
  let record = '';
  let recordStart = 0;
  let recordQuotes = 0;
  let first = true;

  function lines(text: string, final: boolean, out: TableRow[]): void {
    let start = 0;
    for (;;) {
      const nl = text.indexOf('\n', start);
      if (nl === -1 && !final) break;
      const end = nl === -1 ? text.length : nl;
      if (nl === -1 && start >= text.length) break;
      let line = text.slice(start, end > start && text.charCodeAt(end - 1) === 13 ? end - 1 : end);
      start = end + 1;
      lineNumber++;
      if (first) {
        if (line.charCodeAt(0) === 0xfeff) line = line.slice(1);
      }
      if (record === '' && recordQuotes === 0) {
        if (line.trim() === '') continue;
        recordStart = lineNumber;
        record = line;
      } else record += '\n' + line;
      recordQuotes += countQuotes(line);
      // An odd number of quotes so far: a quoted cell runs on into the next line.
      if (recordQuotes % 2 === 1) continue;
      if (first) {
        first = false;
        delimiter ??= sniffDelimiter(record);
        options.onFormat?.({ encoding, delimiter });
      }
      out.push({ rowNumber: recordStart, cells: splitRecord(record, delimiter!) });
      record = '';
      recordQuotes = 0;
      if (nl === -1) break;
    }
    pending = start < text.length ? text.slice(start) : '';
  }

  const feed = (chunk: Buffer | null): TableRow[] => {
    const text = pending + (chunk ? decoder.write(chunk) : (decoder.end() ?? ''));
    const out: TableRow[] = [];
    lines(text, chunk === null, out);
    return out;
  };

  if (sample.length > 0) yield feed(sample);
  if (!ended) {
    for (;;) {
      const next = await iterator.next();
      if (next.done) break;
      yield feed(typeof next.value === 'string' ? Buffer.from(next.value) : next.value);
    }
  }
  yield feed(null);
  if (record !== '') {
    // Unbalanced quote at the end of the file: hand back what there is rather than lose the row.
    delimiter ??= sniffDelimiter(record);
    if (first) options.onFormat?.({ encoding, delimiter });
    first = false;
    yield [{ rowNumber: recordStart, cells: splitRecord(record.replace(/"/g, ''), delimiter) }];
  }
  if (first) options.onFormat?.({ encoding, delimiter: delimiter ?? ',' });
}

/**
 * The lines of a text file, as an editor counts them (a last line without a line end counted too), for an
 * import's progress: line ends are counted as bytes, except in a UTF-16 file (a BOM says so), where a byte
 * 0x0A is also half of many a character (上 is 0A 4E) and line ends are counted as 16-bit units.
 */
export async function countTextLines(source: FileSource): Promise<number> {
  let lines = 0;
  let last = 0x0a;
  let utf16: 'le' | 'be' | null | undefined;
  let head = Buffer.alloc(0);
  let carry: number | null = null;
  const bytes = (chunk: Buffer) => {
    for (const b of chunk) if (b === 0x0a) lines++;
    if (chunk.length > 0) last = chunk[chunk.length - 1]!;
  };
  for await (const value of byteSource(source)) {
    let chunk: Buffer = typeof value === 'string' ? Buffer.from(value) : value;
    if (utf16 === undefined) {
      // The BOM decides, so its two bytes are read first, whatever the chunks.
      head = Buffer.concat([head, chunk]);
      if (head.length < 2) continue;
      utf16 = head[0] === 0xff && head[1] === 0xfe ? 'le' : head[0] === 0xfe && head[1] === 0xff ? 'be' : null;
      chunk = head;
    }
    if (utf16 === null) {
      bytes(chunk);
      continue;
    }
    for (const b of chunk) {
      if (carry === null) {
        carry = b;
        continue;
      }
      const unit = utf16 === 'le' ? carry | (b << 8) : (carry << 8) | b;
      carry = null;
      if (unit === 0x0a) lines++;
      last = unit;
    }
  }
  if (utf16 === undefined) bytes(head);
  return last !== 0x0a ? lines + 1 : lines;
}

/** Text as hospitals' files carry it (Shift_JIS read as cp932): for writers of test and benchmark files. */
export function encodeShiftJis(text: string): Buffer {
  return iconv.encode(text, 'cp932');
}
