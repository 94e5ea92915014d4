import { isKnownHeader } from '@renkei/contracts';

/** The start of a list file as the mapping step shows it: header cells and the first rows. */
export interface FileHead {
  header: string[] | null;
  rows: string[][];
}

/** One CSV/TSV line into cells (double quotes as in RFC 4180; a quoted line break is not expected in a preview). */
function splitLine(line: string, delimiter: string): string[] {
  const cells: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quoted) {
      if (c === '"' && line[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === delimiter) {
      cells.push(cell);
      cell = '';
    } else cell += c;
  }
  cells.push(cell);
  return cells.map((s) => s.trim());
}

// A date (西暦 or 和暦) or a number of four digits or more: what the server's parser counts as data.
const looksLikeData = (cell: string) =>
  /^(\d{4,}$|\d{4}[/.-]\d{1,2}|\d{4}年|[RHSTMrhstm]\d|令和|平成|昭和|大正|明治)/.test(cell.normalize('NFKC').trim());

// FileReader rather than Blob.arrayBuffer: the same in every browser and in the test DOM.
const readBytes = (blob: Blob) =>
  new Promise<ArrayBuffer>((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(reader.result as ArrayBuffer);
    reader.onerror = () => reject(reader.error ?? new Error('read failed'));
    reader.readAsArrayBuffer(blob);
  });

/** UTF-16 by its BOM (Excel's 「Unicode テキスト」), as the import reads it (libs/referral-files sniffEncoding). */
function utf16Of(bytes: Uint8Array): 'utf-16le' | 'utf-16be' | null {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return 'utf-16le';
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return 'utf-16be';
  return null;
}

/**
 * Reads the first 64 KiB of a file: UTF-16 with its BOM, UTF-8 when it decodes as such, else Shift_JIS
 * (what hospital exports are); tab- or comma-separated; whether the first row is a header is decided as
 * the import does.
 */
export async function readFileHead(file: Blob, previewRows = 5): Promise<FileHead> {
  const bytes = new Uint8Array(await readBytes(file.slice(0, 64 * 1024)));
  const utf16 = utf16Of(bytes);
  let text: string;
  if (utf16) {
    // Whole 16-bit units only; a line cut at 64 KiB is past the rows previewed.
    text = new TextDecoder(utf16).decode(bytes.subarray(0, bytes.length - (bytes.length % 2)));
  } else {
    // Up to the last line end, so a character cut at 64 KiB does not spoil the decoding.
    const end = bytes.length === file.size ? bytes.length : bytes.lastIndexOf(0x0a) + 1;
    const head = bytes.subarray(0, end > 0 ? end : bytes.length);
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(head);
    } catch {
      text = new TextDecoder('shift_jis').decode(head);
    }
  }
  const lines = text
    .replace(/^\uFEFF/, '')
    .split(/\r?\n/)
    .filter((l) => l.trim() !== '');
  const delimiter = (lines[0] ?? '').includes('\t') ? '\t' : ',';
  const table = lines.slice(0, previewRows + 1).map((l) => splitLine(l, delimiter));
  // As the import decides (libs/referral-files detectListHeader): a known column name makes it a header;
  // otherwise it is one only when it holds no data while the next row does.
  const [first, second] = table;
  const hasHeader =
    first !== undefined &&
    (first.some(isKnownHeader) || (!first.some(looksLikeData) && second !== undefined && second.some(looksLikeData)));
  return { header: hasHeader ? table[0]! : null, rows: hasHeader ? table.slice(1) : table.slice(0, previewRows) };
}
