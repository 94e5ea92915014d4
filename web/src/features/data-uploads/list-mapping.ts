import {
  listColumns,
  normalizeHeader,
  suggestMapping,
  type MappedListType,
  type MappingTarget,
} from '@renkei/contracts';
import type { FileHead } from './file-head.ts';

/** canonical column → the file's header name, or its 1-based column position (the only way without a header). */
export type ListMappingValues = Record<string, MappingTarget>;

/** Columns of the file as far as the preview shows them: the header's, or the widest first row's. */
export function columnCountOf(head: FileHead): number {
  return Math.max(head.header?.length ?? 0, 0, ...head.rows.map((r) => r.length));
}

/** The 0-based column a mapping target reads in this file, -1 when it names none. */
export function columnIndexOf(head: FileHead, target: MappingTarget | undefined): number {
  if (target === undefined) return -1;
  if (typeof target === 'number') return target >= 1 && target <= columnCountOf(head) ? target - 1 : -1;
  return head.header ? head.header.indexOf(target) : -1;
}

/**
 * What the mapping step starts from: the saved mapping's columns this file has (a saved position as the
 * header name at that position; without a header, its positions within the file: names cannot address
 * it) and the file's columns named exactly as a canonical column it leaves out; for a file with a header
 * that the saved mapping does not fit at all, what the import would read without a mapping (the canonical
 * names and the names hospital exports use, suggestMapping).
 */
export function initialListMapping(
  type: MappedListType,
  head: FileHead,
  saved: ListMappingValues | undefined,
): ListMappingValues {
  const kept: ListMappingValues = {};
  for (const [column, target] of Object.entries(saved ?? {})) {
    const index = columnIndexOf(head, target);
    if (index === -1) continue;
    kept[column] = head.header ? head.header[index]! : index + 1;
  }
  if (!head.header) return kept;
  // A file the saved mapping does not fit at all (another layout): what the import would read.
  if (Object.keys(kept).length === 0) return suggestMapping(head.header, type);
  // Over a saved mapping that fits, only a column named exactly as a canonical one it leaves out, and
  // never a column it already reads: one file column must not feed two canonical ones.
  const taken = new Set(Object.values(kept));
  const sameName = Object.fromEntries(
    listColumns[type].columns.flatMap((column) => {
      const name = head.header!.find((h) => normalizeHeader(h) === normalizeHeader(column));
      return name !== undefined && !(column in kept) && !taken.has(name) ? [[column, name]] : [];
    }),
  );
  return { ...sameName, ...kept };
}
