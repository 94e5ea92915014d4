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

export function decodeQuery(input: string): DecodedQuery {
  const root: DecodedQuery = {};
  const search = input.startsWith('?') ? input.slice(1) : input;
  if (!search) return root;
  for (const pair of search.split('&')) {
    if (!pair) continue;
    const eq = pair.indexOf('=');
    const rawKey = decodeURIComponent((eq === -1 ? pair : pair.slice(0, eq)).replace(/\+/g, ' '));
    const value = eq === -1 ? '' : decodeURIComponent(pair.slice(eq + 1).replace(/\+/g, ' '));
    const path = splitKey(rawKey);
    assign(root, path, value);
  }
  return root;
}

function splitKey(key: string): string[] {
  const first = key.indexOf('[');
  if (first === -1) return [key];
  const segments = [key.slice(0, first)];
  for (const m of key.slice(first).matchAll(/\[([^\]]*)\]/g)) segments.push(m[1]!);
  return segments;
}

function assign(target: any, path: string[], value: string): void {
  const [head, ...rest] = path as [string, ...string[]];
  if (rest.length === 0) {
    const existing = target[head];
    if (existing === undefined) target[head] = value;
    else if (Array.isArray(existing)) existing.push(value);
    else target[head] = [existing, value];
    return;
  }
  const nextIsIndex = /^\d+$/.test(rest[0]!);
  if (target[head] === undefined) target[head] = nextIsIndex ? [] : {};
  assign(target[head], rest, value);
}
