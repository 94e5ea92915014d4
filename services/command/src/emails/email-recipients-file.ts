import { parse } from 'csv-parse/sync';
import iconv from 'iconv-lite';
import type { FieldError } from '@renkei/contracts';
import type { RecipientFileRow } from './email.decider.ts';

const headers = {
  email: ['メールアドレス', 'email'],
  name: ['氏名', 'name'],
  institutionCode: ['医療機関コード', 'institution_code'],
} as const;

/** UTF-8 when the bytes are valid UTF-8 (with or without BOM), else Shift_JIS (cp932, Excel's Japanese CSV). */
function decode(bytes: Buffer): string {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    return iconv.decode(bytes, 'cp932');
  }
}

const columnOf = (header: string[], names: readonly string[]) =>
  header.findIndex((h) => names.includes(h.normalize('NFKC').trim().toLowerCase()) || names.includes(h.trim()));

/**
 * The recipients file (spec §3): a CSV with a header naming メールアドレス (required), 氏名 and
 * 医療機関コード, or their English names email, name, institution_code. Rows are numbered as the
 * file's lines (the header is row 1), so an invalid address can be found in the spreadsheet.
 */
export function readRecipientsFile(bytes: Buffer): { rows: RecipientFileRow[] } | { errors: FieldError[] } {
  let records: string[][];
  try {
    records = parse(decode(bytes), { bom: true, relax_column_count: true, skip_empty_lines: false }) as string[][];
  } catch {
    return { errors: [{ field: 'recipients_file', message: '送信先ファイルをCSVとして読み取れませんでした' }] };
  }
  const header = records[0] ?? [];
  const email = columnOf(header, headers.email);
  if (email < 0)
    return {
      errors: [{ field: 'recipients_file', message: '送信先ファイルの1行目に「メールアドレス」の列がありません' }],
    };
  const name = columnOf(header, headers.name);
  const code = columnOf(header, headers.institutionCode);
  const cell = (record: string[], i: number) => (i < 0 ? null : record[i]?.trim() || null);
  const rows: RecipientFileRow[] = [];
  records.slice(1).forEach((record, i) => {
    if (record.every((c) => c.trim() === '')) return;
    rows.push({
      row: i + 2,
      email: record[email]?.trim() ?? '',
      name: cell(record, name),
      institutionCode: cell(record, code),
    });
  });
  return { rows };
}
