import type { EndpointContract } from '@renkei/contracts';
import { acceptsNull, enumValues, fieldsOf, inputJsonSchema, isDate, isType, type Field } from './arbitraries.ts';

/** A request part an attack sends instead of a valid one. */
export interface Mutated {
  params?: Record<string, string>;
  query?: Record<string, unknown>;
  /** Raw query string appended as is (malformed escapes). */
  rawQuery?: string;
  /** Replaces the whole body (the value is JSON-encoded unless `rawBody` is set). */
  body?: unknown;
  rawBody?: string;
  /** Top-level field the 422 must name, when the mutation aims at one field. */
  field?: string;
}

export interface Valid {
  params: Record<string, string>;
  query: Record<string, unknown> | undefined;
  body: unknown;
}

export const mutationKinds = [
  'wrongType',
  'missing',
  'null',
  'nul',
  'control',
  'loneSurrogate',
  'hugeString',
  'deepNesting',
  'arrayForObject',
  'badDate',
  'year0000',
  'percentEscape',
  'unknownEnum',
  'badPage',
] as const;
export type MutationKind = (typeof mutationKinds)[number];

type Part = 'query' | 'body';
/** Nesting of the deep-JSON attack: CI keeps it small because a stalled parse costs the run seconds. */
const deepNestingLevels = process.env.RELIABILITY_LONG === '1' ? 5_000 : 1_000;
// As text: a value this deep overflows the suite's own JSON.stringify before it reaches the server.
// The deep value takes the place of a field the schema knows (an unknown key is merely ignored).
const deepJson = (n: number, valid: unknown, field: string): string => {
  const rest = { ...((valid ?? {}) as Record<string, unknown>) };
  delete rest[field];
  const fields = JSON.stringify(rest).replace(/^\{|\}$/g, '');
  return `{${fields}${fields ? ',' : ''}${JSON.stringify(field)}:${'{"a":'.repeat(n)}1${'}'.repeat(n)}}`;
};
const huge = 'あ'.repeat(1024 * 1024);

function setAt(root: unknown, path: readonly (string | number)[], value: unknown, remove = false): unknown {
  const copy = structuredClone(root ?? {}) as any;
  let node = copy;
  for (let i = 0; i < path.length - 1; i++) {
    const key = path[i]!;
    if (node[key] === undefined || node[key] === null || typeof node[key] !== 'object') {
      node[key] = typeof path[i + 1] === 'number' ? [{}] : {};
    }
    node = node[key];
  }
  const last = path[path.length - 1]!;
  if (remove) delete node[last];
  else node[last] = value;
  return copy;
}

interface Target {
  part: Part;
  field: Field;
}

function targets(e: EndpointContract): Target[] {
  const result: Target[] = [];
  for (const part of ['query', 'body'] as const) {
    const schema = e[part];
    if (!schema) continue;
    for (const field of fieldsOf(inputJsonSchema(schema))) result.push({ part, field });
  }
  return result;
}

/**
 * The invalid variants of one valid request for one kind of mutation; empty when the kind does not
 * apply to the endpoint (no string field for `nul`, no date for `badDate` …).
 */
export function mutate(e: EndpointContract, kind: MutationKind, valid: Valid): Mutated[] {
  // Multipart fields are flat strings: a null, a missing optional field, a list or a nested value
  // cannot be said in them.
  if (e.multipart && ['null', 'missing', 'arrayForObject', 'deepNesting'].includes(kind)) return [];
  const all = targets(e);
  const top = (t: Target) => String(t.field.path[0]);
  const on = (t: Target, value: unknown, remove = false): Mutated => {
    const base = t.part === 'query' ? (valid.query ?? {}) : (valid.body ?? {});
    const changed = setAt(base, t.field.path, value, remove);
    return t.part === 'query'
      ? { query: changed as Record<string, unknown>, field: top(t) }
      : { body: changed, field: top(t) };
  };
  const strings = all.filter((t) => isType(t.field, 'string') && !enumValues(t.field).length);
  const stringsInBody = strings.filter((t) => t.part === 'body');
  const withPathIds = e.params ? Object.keys(valid.params) : [];
  switch (kind) {
    case 'wrongType':
      return all
        .filter((t) => t.part === 'body')
        .map((t) => on(t, isType(t.field, 'string') ? { not: 'a string' } : 'not-a-number-or-list'));
    case 'missing':
      return all.filter((t) => t.field.required && t.field.path.length === 1).map((t) => on(t, undefined, true));
    case 'null':
      return all.filter((t) => t.part === 'body' && !acceptsNull(t.field)).map((t) => on(t, null));
    case 'nul':
      return [
        ...strings.map((t) => on(t, 'ab\u0000cd')),
        ...withPathIds.map((name) => ({ params: { ...valid.params, [name]: '%00' } })),
      ];
    case 'control':
      return stringsInBody.map((t) => on(t, 'ab\u0007\u001bcd'));
    case 'loneSurrogate':
      return strings.map((t) => on(t, 'ab\ud800cd'));
    case 'hugeString':
      return stringsInBody.length ? [on(stringsInBody[0]!, huge)] : [];
    case 'deepNesting':
      return all
        .filter((t) => t.part === 'body' && t.field.path.length === 1)
        .slice(0, 1)
        .map((t) => ({ rawBody: deepJson(deepNestingLevels, valid.body, top(t)), field: top(t) }));
    case 'arrayForObject':
      return e.body ? [{ body: [valid.body] }] : [];
    case 'badDate':
      return all.filter((t) => isDate(t.field)).map((t) => on(t, '2024-13-45'));
    case 'year0000':
      return all.filter((t) => isDate(t.field)).map((t) => on(t, '0000-01-01'));
    case 'percentEscape':
      return [
        ...(e.query ? [{ rawQuery: 'keyword=%E3%81%&page=%ZZ' }] : []),
        ...withPathIds.map((name) => ({ params: { ...valid.params, [name]: '%E3%81%' } })),
      ];
    case 'unknownEnum':
      return all.filter((t) => enumValues(t.field).length > 0).map((t) => on(t, 'no_such_value'));
    case 'badPage':
      return all
        .filter((t) => t.part === 'query' && ['page', 'per_page'].includes(top(t)))
        .flatMap((t) => [on(t, '-1'), on(t, '0'), on(t, '99999999999999999999999'), on(t, 'abc')]);
  }
}

/** Whether any variant of a kind applies to an endpoint, decided from its schemas alone. */
export function mutationApplies(e: EndpointContract, kind: MutationKind): boolean {
  const dummy: Valid = {
    params: Object.fromEntries([...e.path.matchAll(/\{([a-z_]+)\}/g)].map((m) => [m[1]!, 'x'])),
    query: {},
    body: {},
  };
  return mutate(e, kind, dummy).length > 0;
}
