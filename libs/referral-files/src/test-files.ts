import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import iconv from 'iconv-lite';
import type { Parsed } from './parsed.ts';

/** Test support: writes a fixture the way hospitals send it (Shift_JIS and CRLF unless told otherwise). */
export function writeFixture(
  lines: readonly (readonly string[] | string)[],
  options: { encoding?: 'shift_jis' | 'utf8'; bom?: boolean; eol?: string; delimiter?: string; name?: string } = {},
): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'referral-files-'));
  const file = path.join(dir, options.name ?? 'fixture.txt');
  const text =
    lines.map((l) => (typeof l === 'string' ? l : l.join(options.delimiter ?? '\t'))).join(options.eol ?? '\r\n') +
    (options.eol ?? '\r\n');
  const body = options.encoding === 'utf8' ? Buffer.from(text, 'utf8') : iconv.encode(text, 'cp932');
  fs.writeFileSync(file, options.bom ? Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), body]) : body);
  return file;
}

export async function collect<T>(
  items: AsyncIterable<Parsed<T>>,
): Promise<{ records: T[]; rejected: { rowNumber: number; reason: string }[] }> {
  const records: T[] = [];
  const rejected: { rowNumber: number; reason: string }[] = [];
  for await (const item of items) {
    if (item.kind === 'record') records.push(item.record);
    else rejected.push({ rowNumber: item.rowNumber, reason: item.reason });
  }
  return { records, rejected };
}
