/**
 * JSON with object keys sorted, for "did anything change?" comparisons: event data read back from
 * Postgres jsonb has its keys reordered, so plain JSON.stringify would see changes that are not there.
 */
export function stableJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(
          Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
        )
      : v,
  );
}
