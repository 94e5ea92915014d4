import { suggestMapping, type MappedListType, type MappingTarget } from '@renkei/contracts';
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
 * What the mapping step starts from: with a header, what the import would read without a mapping
 * (the canonical names and the names hospital exports use, suggestMapping) and over it the saved
 * mapping's columns this file has (a saved position as the header name at that position); without a
 * header, the saved mapping's positions within the file (names cannot address it).
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
  return head.header ? { ...suggestMapping(head.header, type), ...kept } : kept;
}
