/** What a user sees when a request string holds a character the rule below refuses. */
export const unusableCharacterMessage = '使用できない文字が含まれています。';

/**
 * C0 control characters other than tab, LF and CR, DEL, and UTF-16 surrogates that are not part of a
 * pair. Postgres cannot store NUL in text and no encoder can write a lone surrogate, so none of them
 * may enter a record, a search or an export. Tab and line breaks stay allowed everywhere: multi-line
 * fields need them and in a one-line field they are harmless.
 */
const unusableCharacter =
  // eslint-disable-next-line no-control-regex -- matching control characters is the point
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export function hasUnusableCharacter(text: string): boolean {
  return unusableCharacter.test(text);
}

/** At most this many paths are reported; one is enough to fix the form, a flood helps nobody. */
const maxReported = 20;

/**
 * The paths (`['tasks', 0, 'title']`) of every string, and every object key, in a decoded request
 * part (JSON body, query, params) that `hasUnusableCharacter` refuses. Walks plain objects and arrays
 * only (a multipart file stream is not text), without recursion, so any nesting depth JSON.parse
 * accepted is fine.
 */
export function findUnusableText(value: unknown): (string | number)[][] {
  const found: (string | number)[][] = [];
  // Each entry links to its parent, so a path is built only for what is reported.
  type Entry = { value: unknown; key: string | number; parent: Entry | null };
  const pathOf = (entry: Entry | null, last?: string): (string | number)[] => {
    const reversed: (string | number)[] = last === undefined ? [] : [last];
    for (let e = entry; e && e.parent; e = e.parent) reversed.push(e.key);
    return reversed.reverse();
  };
  const stack: Entry[] = [{ value, key: '', parent: null }];
  while (stack.length > 0 && found.length < maxReported) {
    const entry = stack.pop()!;
    const current = entry.value;
    if (typeof current === 'string') {
      if (hasUnusableCharacter(current)) found.push(pathOf(entry));
    } else if (Array.isArray(current)) {
      for (let i = current.length - 1; i >= 0; i--) stack.push({ value: current[i], key: i, parent: entry });
    } else if (isPlainObject(current)) {
      const keys = Object.keys(current);
      for (let i = keys.length - 1; i >= 0; i--) {
        const key = keys[i]!;
        if (hasUnusableCharacter(key)) found.push(pathOf(entry, key));
        else stack.push({ value: current[key], key, parent: entry });
      }
    }
  }
  return found;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const proto = Object.getPrototypeOf(value);
  // A null prototype one level down is the router's params object (find-my-way's NullObject).
  return proto === Object.prototype || proto === null || Object.getPrototypeOf(proto) === null;
}
