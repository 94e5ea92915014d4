import fc from 'fast-check';
import { z } from 'zod';
import { EmailInput, EmailMultipartFields } from '@renkei/contracts';

type Json = Record<string, any>;

/**
 * The input side of a zod schema as JSON Schema (zod 4's own `toJSONSchema`): defaults make a field
 * optional, pipes and preprocessors show what the client may send. Refinements and transforms are not
 * representable; the generated values are therefore checked with the zod schema itself before use.
 */
export function inputJsonSchema(schema: z.ZodType): Json {
  return z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any', reused: 'inline' }) as Json;
}

const text = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.constantFrom('駿河', '医療法人 さくら会', 'ｶﾀｶﾅ', '髙橋 𠮷田', 'a b', "O'Neil", '<b>x</b>', '=1+1'),
);

const isoDate = fc
  .date({ min: new Date('1990-01-01T00:00:00Z'), max: new Date('2035-12-31T00:00:00Z'), noInvalidDate: true })
  .map((d) => d.toISOString().slice(0, 10));

/** At most `max` UTF-16 units without splitting a surrogate pair (a lone surrogate is an invalid input). */
function cut(s: string, max: number): string {
  const chars = Array.from(s);
  while (chars.join('').length > max) chars.pop();
  return chars.join('');
}

function stringArbitrary(js: Json): fc.Arbitrary<string> {
  const min = js.minLength ?? 0;
  const max = Math.min(js.maxLength ?? 40, Math.max(min, 40));
  switch (js.format) {
    case 'uuid':
      return fc.uuid({ version: 4 });
    case 'email':
      return fc.constantFrom('a@example.jp', 'staff.one@clinic.example.jp', 'x_y+z@hp.example.com');
    case 'date':
      return isoDate;
    case 'date-time':
      return isoDate.map((d) => `${d}T09:30:00+09:00`);
  }
  if (js.pattern) return fc.stringMatching(new RegExp(js.pattern)).filter((s) => s.length >= min && s.length <= max);
  return fc
    .oneof(text, fc.string({ minLength: min, maxLength: max, unit: 'grapheme' }))
    .map((s) => (s.length < min ? s.padEnd(min, 'あ') : cut(s, max)));
}

/** An arbitrary of values the JSON Schema describes (small: at most a few items per array). */
function arbitraryOf(js: Json): fc.Arbitrary<unknown> {
  if (js.const !== undefined) return fc.constant(js.const);
  if (Array.isArray(js.enum)) return fc.constantFrom(...js.enum);
  const union = js.anyOf ?? js.oneOf;
  if (Array.isArray(union)) return fc.oneof(...union.map((s: Json) => arbitraryOf(s)));
  const type = Array.isArray(js.type) ? js.type[0] : js.type;
  switch (type) {
    case 'string':
      return stringArbitrary(js);
    case 'integer': {
      const min = Math.max(js.minimum ?? -1000, js.exclusiveMinimum !== undefined ? js.exclusiveMinimum + 1 : -1e9);
      const max = Math.min(js.maximum ?? 1000, js.exclusiveMaximum !== undefined ? js.exclusiveMaximum - 1 : 1e9);
      return fc.integer({ min: Math.max(min, -1e6), max: Math.min(Math.max(max, min), Math.max(min, 1e6)) });
    }
    case 'number':
      return fc.double({ min: js.minimum ?? -1e6, max: js.maximum ?? 1e6, noNaN: true });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return fc.array(arbitraryOf(js.items ?? {}), {
        minLength: js.minItems ?? 0,
        maxLength: Math.min(js.maxItems ?? 3, Math.max(js.minItems ?? 0, 3)),
      });
    case 'object': {
      const props = (js.properties ?? {}) as Record<string, Json>;
      const model = Object.fromEntries(Object.entries(props).map(([k, v]) => [k, arbitraryOf(v)]));
      return fc.record(model, { requiredKeys: (js.required ?? []) as string[] });
    }
    default:
      return fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.boolean());
  }
}

/** Valid inputs of a zod schema: generated from its JSON Schema, kept when zod itself accepts them. */
/**
 * Parts whose JSON Schema cannot say what the zod schema accepts: a multipart text field carrying JSON
 * (`stringified` of the email calls) is a string to JSON Schema but an object to zod. Each is written
 * once here; a new such part makes the arbitraries test fail until it is added.
 */
const handWritten = new Map<z.ZodType, () => fc.Arbitrary<unknown>>([
  [EmailMultipartFields, () => validArbitrary(EmailInput).map((v) => ({ stringified: JSON.stringify(v) }))],
]);

export function validArbitrary(schema: z.ZodType): fc.Arbitrary<unknown> {
  const written = handWritten.get(schema);
  if (written) return written();
  const raw = arbitraryOf(inputJsonSchema(schema));
  // A filter nothing passes makes fast-check draw forever: make sure the schema accepts some draws first.
  if (!fc.sample(raw, { numRuns: 200, seed: 7 }).some((v) => schema.safeParse(v).success))
    throw new Error('no value generated from the JSON Schema is accepted by the zod schema');
  return raw.filter((v) => schema.safeParse(v).success);
}

/** One leaf of an object schema the mutations can aim at: its key path and its JSON Schema. */
export interface Field {
  readonly path: readonly (string | number)[];
  readonly schema: Json;
  readonly required: boolean;
}

function leafTypes(js: Json): Json[] {
  const union = js.anyOf ?? js.oneOf;
  return Array.isArray(union) ? union.flatMap(leafTypes) : [js];
}

/** The top-level fields of an object schema (and those of objects inside arrays, as `[0]`). */
export function fieldsOf(js: Json, prefix: (string | number)[] = []): Field[] {
  const result: Field[] = [];
  const required = new Set<string>(js.required ?? []);
  for (const [key, value] of Object.entries((js.properties ?? {}) as Record<string, Json>)) {
    const path = [...prefix, key];
    result.push({ path, schema: value, required: required.has(key) });
    for (const alt of leafTypes(value)) {
      if (alt.type === 'array' && alt.items?.type === 'object' && prefix.length === 0) {
        result.push(...fieldsOf(alt.items, [...path, 0]));
      }
    }
  }
  return result;
}

export const isType = (field: Field, type: string) => leafTypes(field.schema).some((s) => s.type === type);
export const acceptsNull = (field: Field) => leafTypes(field.schema).some((s) => s.type === 'null');
export const enumValues = (field: Field): unknown[] =>
  leafTypes(field.schema).flatMap((s) => (Array.isArray(s.enum) ? s.enum : []));
export const isDate = (field: Field) =>
  leafTypes(field.schema).some((s) => s.format === 'date' || s.format === 'date-time');
