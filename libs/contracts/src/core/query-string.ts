/**
 * The one query-string format of spec §7, shared by client and services: array keys repeated
 * (`tag_ids=1&tag_ids=2`), dates as ISO strings, nested objects with bracket keys (`period[from]=…`),
 * arrays of objects as indexed brackets (`labels[0][label_id]=…`).
 *
 * A repeated key decodes to an array and a single one to a string; schemas coerce (see `queryArray`).
 */
export type QueryValue =
  string | number | boolean | Date | null | undefined | QueryValue[] | { [key: string]: QueryValue };

export function encodeQuery(query: Record<string, QueryValue>): string {
  const parts: string[] = [];
  const push = (key: string, value: string): void => {
    parts.push(`${encodeKey(key)}=${encodeURIComponent(value)}`);
  };
  const walk = (key: string, value: QueryValue): void => {
    if (value === undefined || value === null) return;
    if (value instanceof Date) return push(key, value.toISOString());
    if (Array.isArray(value)) {
      value.forEach((item, index) => {
        if (item !== null && typeof item === 'object' && !(item instanceof Date) && !Array.isArray(item)) {
          walk(`${key}[${index}]`, item);
        } else {
          walk(key, item);
        }
      });
      return;
    }
    if (typeof value === 'object') {
      for (const [k, v] of Object.entries(value)) walk(`${key}[${k}]`, v);
      return;
    }
    push(key, String(value));
  };
  for (const [key, value] of Object.entries(query)) walk(key, value);
  return parts.join('&');
}

function encodeKey(key: string): string {
  // Brackets stay readable; everything else is escaped.
  return encodeURIComponent(key).replace(/%5B/g, '[').replace(/%5D/g, ']');
}

export type DecodedQuery = { [key: string]: string | string[] | DecodedQuery | DecodedQuery[] };

/** Highest array index accepted in a bracket key; a larger one would make a huge sparse array. */
export const maxQueryArrayIndex = 999;
const forbiddenSegments = new Set(['__proto__', 'constructor', 'prototype']);
/**
 * Where `decodeQuery` keeps the decoded `key=value` pairs it could not place, so a service can answer
 * 422 for them instead of them vanishing.
 */
export const invalidQueryKey = '[invalid]';

/**
 * Decodes what `encodeQuery` writes (and `key[]=v` as a repeated key). Never throws: it runs as the
 * services' query-string parser, before any handler could turn an exception into a 4xx. Malformed
 * escapes are kept as written, and a pair that cannot be placed in the structure (its key collides
 * with a value of another shape, names a prototype slot or an index above `maxQueryArrayIndex`) is
 * kept, decoded, under `invalidQueryKey`.
 */
export function decodeQuery(input: string): DecodedQuery {
  const root: DecodedQuery = {};
  const search = input.startsWith('?') ? input.slice(1) : input;
  if (!search) return root;
  for (const pair of search.split('&')) {
    if (!pair) continue;
    const eq = pair.indexOf('=');
    const rawKey = safeDecode(eq === -1 ? pair : pair.slice(0, eq));
    const value = eq === -1 ? '' : safeDecode(pair.slice(eq + 1));
    const path = splitKey(rawKey);
    if (!path || !assign(root, path, value)) {
      const invalid = (root[invalidQueryKey] ??= []) as string[];
      invalid.push(`${rawKey}=${value}`);
    }
  }
  return root;
}

function safeDecode(text: string): string {
  const plus = text.replace(/\+/g, ' ');
  try {
    return decodeURIComponent(plus);
  } catch {
    return decodeWithSurrogates(plus) ?? plus;
  }
}

/** `%ED%A0%80`…`%ED%BF%BF`: a UTF-16 surrogate written as UTF-8 bytes (WTF-8), which strict UTF-8 refuses. */
const surrogateEscape = /%ED%[AB][0-9A-F]%[89AB][0-9A-F]/gi;

/**
 * The text with surrogate escapes decoded to the lone surrogate they name, or null when it has any
 * other malformed escape. A client that sends a lone surrogate (a JavaScript string cut in the middle
 * of a pair) sends these bytes: read as the surrogate, the services' string rule names the field
 * (422) instead of taking the escape for literal text.
 */
function decodeWithSurrogates(text: string): string | null {
  if (!surrogateEscape.test(text)) return null;
  surrogateEscape.lastIndex = 0;
  const parts = text.split(surrogateEscape);
  const surrogates = (text.match(surrogateEscape) ?? []).map((escape) => {
    const [b1, b2, b3] = escape
      .split('%')
      .slice(1)
      .map((h) => parseInt(h, 16));
    return String.fromCharCode(((b1! & 0x0f) << 12) | ((b2! & 0x3f) << 6) | (b3! & 0x3f));
  });
  try {
    return parts.map((part, i) => decodeURIComponent(part) + (surrogates[i] ?? '')).join('');
  } catch {
    return null;
  }
}

/** `a[b][0][]` → ['a', 'b', '0', '']; null when the key is not well formed. */
function splitKey(key: string): string[] | null {
  const first = key.indexOf('[');
  if (first <= 0) return first === 0 ? null : [key];
  const rest = key.slice(first);
  if (!/^(\[[^[\]]*\])+$/.test(rest)) return null;
  const segments = [key.slice(0, first)];
  for (const m of rest.matchAll(/\[([^\]]*)\]/g)) segments.push(m[1]!);
  return segments;
}

function isIndex(segment: string): boolean {
  return /^\d+$/.test(segment) && Number(segment) <= maxQueryArrayIndex;
}

function isContainer(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

function appendValue(target: any, key: string, value: string): boolean {
  if (forbiddenSegments.has(key)) return false;
  const existing = Object.hasOwn(target, key) ? target[key] : undefined;
  if (existing === undefined) target[key] = value;
  else if (Array.isArray(existing) && existing.every((v) => typeof v === 'string')) existing.push(value);
  else if (typeof existing === 'string') target[key] = [existing, value];
  else return false;
  return true;
}

/** Places the value at the path; false when the path collides with what is already there. */
function assign(target: any, path: string[], value: string): boolean {
  const [head, ...rest] = path as [string, ...string[]];
  if (forbiddenSegments.has(head)) return false;
  if (Array.isArray(target) && !isIndex(head)) return false;
  if (rest.length === 0 || (rest.length === 1 && rest[0] === '')) return appendValue(target, head, value);
  if (rest[0] === '') return false;
  const wantArray = isIndex(rest[0]!);
  if (/^\d+$/.test(rest[0]!) && !wantArray) return false;
  const existing = Object.hasOwn(target, head) ? target[head] : undefined;
  if (existing === undefined) target[head] = wantArray ? [] : {};
  else if (!isContainer(existing) || Array.isArray(existing) !== wantArray) return false;
  else if (Array.isArray(existing) && existing.some((v: unknown) => typeof v === 'string')) return false;
  return assign(target[head], rest, value);
}

/**
 * The URL with every `%` that does not start a valid escape written as `%25`, so a malformed escape
 * (`?page=%ZZ`, `/tags/%E3`) reads as the text it is instead of failing URL decoding in the router or a
 * proxy before the service could answer with its own error body. A well-formed URL is returned as is.
 */
export function repairPercentEscapes(url: string, options: { keepSurrogates?: boolean } = {}): string {
  if (!url.includes('%')) return url;
  const at = url.indexOf('?');
  // In the query a surrogate written as UTF-8 bytes is kept (unless a proxy must forward the URL, which
  // then decodes it strictly): `decodeQuery` reads it as the surrogate it names, and the service's
  // string rule refuses it. A path has no such reading (the router decodes it strictly).
  const keep = options.keepSurrogates ?? true;
  if (at >= 0) return repairEscapes(url.slice(0, at), false) + repairEscapes(url.slice(at), keep);
  return repairEscapes(url, false);
}

/** Whether a query pair carries a surrogate written as UTF-8 bytes (`%ED%A0%80`). */
export const hasSurrogateEscape = (pair: string): boolean => {
  try {
    decodeURIComponent(pair);
    return false;
  } catch {
    return decodeWithSurrogates(pair) !== null && new RegExp(surrogateEscape.source, 'i').test(pair);
  }
};

function repairEscapes(text: string, keepSurrogates: boolean): string {
  if (!text.includes('%')) return text;
  const repaired = text.replace(/%(?![0-9A-Fa-f]{2})/g, '%25');
  // Escapes that are hex but not UTF-8 (`%E3%81` cut short, `%FF`) fail decoding too: escape their `%`.
  return repaired.replace(/(?:%[0-9A-Fa-f]{2})+/g, (run) => {
    try {
      decodeURIComponent(run);
      return run;
    } catch {
      return keepSurrogates && decodeWithSurrogates(run) !== null ? run : run.replace(/%/g, '%25');
    }
  });
}
