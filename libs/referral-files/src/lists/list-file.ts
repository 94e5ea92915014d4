import {
  readTable,
  readTableBatches,
  type FileSource,
  type TableFormat,
  type TableReadOptions,
  type TableRow,
} from '../table-reader.ts';
import { parseListDate } from '../dates.ts';
import { FileKindError, fileKindLabels } from '../file-kind-error.ts';
import { isKnownHeader, listColumns, normalizeHeader, type ListKind, type ListMapping } from './list-columns.ts';

function looksLikeData(cell: string): boolean {
  return parseListDate(cell) !== null || /^\d{4,}$/.test(cell.normalize('NFKC'));
}

/**
 * The first row is a header when it names a known column, or when it holds no date or long number
 * while the second row does (a header in the hospital's own words).
 */
export function detectListHeader(first: readonly string[], second: readonly string[] | undefined): boolean {
  if (first.some(isKnownHeader)) return true;
  if (first.some(looksLikeData)) return false;
  return second !== undefined && second.some(looksLikeData);
}

export interface ListHeader {
  format: TableFormat;
  hasHeader: boolean;
  /** The header's cells, or null when the file has none (map by 1-based column position then). */
  headerNames: string[] | null;
  /** The widest row seen in the preview. */
  columnCount: number;
  /** The first data rows, for the mapping screen. */
  rows: TableRow[];
}

/** Reads only the start of a list file: its format, whether it has a header, and a preview. */
export async function readListHeader(
  source: FileSource,
  options: TableReadOptions & { previewRows?: number | undefined } = {},
): Promise<ListHeader> {
  const wanted = (options.previewRows ?? 10) + 1;
  const rows: TableRow[] = [];
  let format: TableFormat = { encoding: 'utf8', delimiter: ',' };
  for await (const row of readTable(source, { ...options, onFormat: (f) => (format = f) })) {
    rows.push(row);
    if (rows.length >= wanted) break;
  }
  const hasHeader = rows.length > 0 && detectListHeader(rows[0]!.cells, rows[1]?.cells);
  return {
    format,
    hasHeader,
    headerNames: hasHeader ? rows[0]!.cells : null,
    columnCount: Math.max(0, ...rows.map((r) => r.cells.length)),
    rows: hasHeader ? rows.slice(1) : rows.slice(0, wanted - 1),
  };
}

export interface ListReadOptions<C extends string> extends TableReadOptions {
  /** canonical column → a header name, or a 1-based column position (1 = 1列目; the only way for a file without a header). */
  mapping: ListMapping<C>;
  /** Whether the first row is a header; detected when left out. */
  hasHeader?: boolean | undefined;
}

/** A data row with its cells looked up through the mapping. */
export interface MappedRow<C extends string> {
  rowNumber: number;
  /** The cell of a canonical column, '' when unmapped or absent. */
  get(column: C): string;
  /** Cells in the row. */
  width: number;
  /** Cells a row needs so that every mapped required column exists. */
  requiredWidth: number;
}

/**
 * Streams a list through a mapping. Throws FileKindError before the first row when a mapped header
 * name is missing or a required column is not mapped.
 */
export async function* readMappedList<C extends string>(
  source: FileSource,
  kind: ListKind,
  required: readonly (readonly C[])[],
  options: ListReadOptions<C>,
): AsyncGenerator<MappedRow<C>[]> {
  const label = fileKindLabels[kind];
  const known = new Set(listColumns(kind));
  for (const key of Object.keys(options.mapping))
    if (!known.has(key)) throw new FileKindError(kind, `${label}に「${key}」という項目はありません`);
  for (const alternatives of required) {
    if (!alternatives.some((c) => options.mapping[c] !== undefined && options.mapping[c] !== ''))
      throw new FileKindError(kind, `列の対応付けに「${alternatives.join('」または「')}」がありません`);
  }
  let indexes: [C, number][] | null = null;
  let held: TableRow | null = null;
  let hasHeader = options.hasHeader;

  const resolve = (header: readonly string[] | null): [C, number][] =>
    (Object.entries(options.mapping) as [C, number | string | undefined][])
      .filter((entry): entry is [C, number | string] => entry[1] !== undefined && entry[1] !== '')
      .map(([column, target]) => {
        if (typeof target === 'number') {
          if (!Number.isInteger(target) || target < 1)
            throw new FileKindError(kind, `「${column}」の列番号「${target}」は1以上の整数で指定してください`);
          return [column, target - 1];
        }
        if (header === null)
          throw new FileKindError(
            kind,
            `見出し行がないため、列名「${target}」で対応付けできません。「1列目」「2列目」のように列の位置で対応付けてください`,
          );
        let index = header.indexOf(target);
        if (index === -1) index = header.findIndex((h) => normalizeHeader(h) === normalizeHeader(target));
        if (index === -1)
          throw new FileKindError(
            kind,
            `${label}の見出しに「${target}」の列がありません（見出し: ${header.join('、')}）`,
          );
        return [column, index];
      });

  let map = new Map<C, number>();
  let needed = 0;
  const requiredColumns = new Set<C>(required.flat());
  function emit(row: TableRow, out: MappedRow<C>[]): void {
    if (map.size === 0) {
      map = new Map(indexes!);
      for (const [column, index] of indexes!) if (requiredColumns.has(column)) needed = Math.max(needed, index + 1);
    }
    out.push({
      rowNumber: row.rowNumber,
      width: row.cells.length,
      requiredWidth: needed,
      get: (column) => {
        const i = map.get(column);
        return i === undefined ? '' : (row.cells[i] ?? '');
      },
    });
  }

  for await (const batch of readTableBatches(source, options)) {
    const out: MappedRow<C>[] = [];
    for (const row of batch) {
      if (indexes === null) {
        if (hasHeader === undefined && held === null) {
          held = row;
          continue;
        }
        if (hasHeader === undefined) hasHeader = detectListHeader(held!.cells, row.cells);
        const first = held ?? row;
        indexes = resolve(hasHeader ? first.cells : null);
        if (held !== null && !hasHeader) emit(held, out);
        if (held === null && hasHeader) continue;
        held = null;
      }
      emit(row, out);
    }
    if (out.length > 0) yield out;
  }
  if (indexes === null && held !== null) {
    hasHeader ??= detectListHeader(held.cells, undefined);
    indexes = resolve(hasHeader ? held.cells : null);
    const out: MappedRow<C>[] = [];
    if (!hasHeader) emit(held, out);
    if (out.length > 0) yield out;
  }
}
