/**
 * `prefixed('areaReports', { results })` → `{ areaReportsResults: results }`, keeping each entry's type.
 * Zod-free, so the client's route table can build the same keys as the registry.
 */
export function prefixed<P extends string, T extends Record<string, unknown>>(
  prefix: P,
  entries: T,
): { [K in keyof T & string as `${P}${Capitalize<K>}`]: T[K] } {
  return Object.fromEntries(
    Object.entries(entries).map(([key, value]) => [`${prefix}${key[0]!.toUpperCase()}${key.slice(1)}`, value]),
  ) as never;
}
