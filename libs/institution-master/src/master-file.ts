import fs from 'node:fs';
import { parse } from 'csv-parse';
import iconv from 'iconv-lite';
import { masterColumns, type MasterColumnKey, type MasterRecord } from './master-format.ts';

export type FileEncoding = 'utf8' | 'shift_jis';

/**
 * Sniffs the encoding from the file's first 64 KiB: a UTF-8 BOM or valid UTF-8 means UTF-8, anything
 * else is taken as Shift_JIS (cp932, as MHLW and hospital systems write it).
 */
export async function detectEncoding(filePath: string): Promise<FileEncoding> {
  const handle = await fs.promises.open(filePath, 'r');
  try {
    const buf = Buffer.alloc(65536);
    const { bytesRead } = await handle.read(buf, 0, buf.length, 0);
    const sample = buf.subarray(0, bytesRead);
    if (sample[0] === 0xef && sample[1] === 0xbb && sample[2] === 0xbf) return 'utf8';
    try {
      // stream: a multi-byte character cut at the end of the sample is not an error.
      new TextDecoder('utf-8', { fatal: true }).decode(sample, { stream: bytesRead === buf.length });
      return 'utf8';
    } catch {
      return 'shift_jis';
    }
  } finally {
    await handle.close();
  }
}

async function detectDelimiter(filePath: string, encoding: FileEncoding): Promise<string> {
  const handle = await fs.promises.open(filePath, 'r');
  try {
    const buf = Buffer.alloc(8192);
    const { bytesRead } = await handle.read(buf, 0, buf.length, 0);
    const firstLine =
      iconv.decode(buf.subarray(0, bytesRead), encoding === 'utf8' ? 'utf8' : 'cp932').split(/\r?\n/)[0] ?? '';
    return (firstLine.match(/\t/g)?.length ?? 0) > (firstLine.match(/,/g)?.length ?? 0) ? '\t' : ',';
  } finally {
    await handle.close();
  }
}

export interface MasterFileRow {
  /** 1-based record number in the file, the header counted. */
  rowNumber: number;
  record: MasterRecord;
}

const headerIndex = new Map<string, MasterColumnKey>(masterColumns.map((c) => [c.header, c.key]));

/**
 * Streams a master file as records: decodes, splits, recognises an optional header. Memory stays
 * flat whatever the file size.
 */
export async function* readMasterFile(
  filePath: string,
  options: { encoding?: FileEncoding | undefined } = {},
): AsyncGenerator<MasterFileRow, void, undefined> {
  const encoding = options.encoding ?? (await detectEncoding(filePath));
  const delimiter = await detectDelimiter(filePath, encoding);
  const parser = fs
    .createReadStream(filePath)
    .pipe(iconv.decodeStream(encoding === 'utf8' ? 'utf8' : 'cp932'))
    .pipe(
      parse({
        delimiter,
        bom: true,
        relax_column_count: true,
        relax_quotes: true,
        skip_empty_lines: true,
        trim: true,
      }),
    );
  let positions: (MasterColumnKey | undefined)[] | null = null;
  let rowNumber = 0;
  for await (const cells of parser as AsyncIterable<string[]>) {
    rowNumber++;
    if (positions === null) {
      const asHeader = cells.map(
        (c) => headerIndex.get(c.normalize('NFKC').replace(/\s/g, '')) ?? headerIndex.get(c.trim()),
      );
      const known = asHeader.filter((k) => k !== undefined).length;
      if (known >= Math.min(3, masterColumns.length) && !/^\d{7,10}$/.test(cells[0]?.trim() ?? '')) {
        positions = asHeader;
        continue;
      }
      positions = masterColumns.map((c) => c.key);
    }
    const record = Object.fromEntries(masterColumns.map((c) => [c.key, ''])) as MasterRecord;
    positions.forEach((key, i) => {
      if (key) record[key] = cells[i] ?? '';
    });
    yield { rowNumber, record };
  }
}
