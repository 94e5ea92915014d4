// URL search validation without zod: every route's validateSearch runs in the entry chunk (the router
// cannot split it out), and zod there would load ~26 KiB gzip before the first page. Each reader keeps a
// link written by hand or by an older build opening: a bad piece falls back alone.

export type SearchInput = Record<string, unknown>;

// The pattern of zod 4's z.string().uuid() (the contracts' Id), so the URL accepts what the API does.
const uuidPattern =
  /^([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[1-8][0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}|00000000-0000-0000-0000-000000000000|ffffffff-ffff-ffff-ffff-ffffffffffff)$/;

/** An integer in [min, max] (numeric strings accepted, as links carry them), else the fallback. */
export function intParam(value: unknown, min: number, max: number, fallback: number): number {
  const n = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN;
  return Number.isInteger(n) && n >= min && n <= max ? n : fallback;
}

/** One of the choices, else the fallback. */
export function enumParam<const T extends string, F>(value: unknown, choices: readonly T[], fallback: F): T | F {
  return typeof value === 'string' && (choices as readonly string[]).includes(value) ? (value as T) : fallback;
}

export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && uuidPattern.test(value);
}

/** A string of at most `max` characters after trimming (at least `min`), else undefined. */
export function trimmedString(value: unknown, min: number, max: number): string | undefined {
  if (typeof value !== 'string') return undefined;
  const s = value.trim();
  return s.length >= min && s.length <= max ? s : undefined;
}

/** A non-empty list of at most `max` items all valid, else undefined (the whole list resets). */
export function listParam<T>(value: unknown, item: (v: unknown) => T | undefined, max = Infinity): T[] | undefined {
  if (!Array.isArray(value) || value.length === 0 || value.length > max) return undefined;
  const out: T[] = [];
  for (const v of value) {
    const parsed = item(v);
    if (parsed === undefined) return undefined;
    out.push(parsed);
  }
  return out;
}

/**
 * A real calendar day `YYYY-MM-DD`, as z.iso.date() takes it: 2026-02-30 does not survive the round trip,
 * and 2026-13-01 is no date at all (its toISOString would throw inside a validateSearch).
 */
export function isCalendarDay(value: unknown): value is string {
  if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  const parsed = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(parsed.getTime()) && parsed.toISOString().startsWith(value);
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
