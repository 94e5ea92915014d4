import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { registry } from '@renkei/contracts';
import { fieldsOf, inputJsonSchema, validArbitrary } from './arbitraries.ts';

describe('valid inputs from the zod schemas', () => {
  const parts = registry
    .filter((e) => e.served)
    .flatMap((e) => (['params', 'query', 'body'] as const).filter((p) => e[p]).map((p) => [e.id, p, e[p]!] as const));

  it.each(parts)('%s %s: generated values are accepted by the schema', (_id, _part, schema) => {
    const values = fc.sample(validArbitrary(schema), { numRuns: 10, seed: 42 });
    expect(values).toHaveLength(10);
    for (const v of values) expect(schema.safeParse(v).success).toBe(true);
  });

  it('finds the fields of nested list items', () => {
    const schema = z.object({ items: z.array(z.object({ name: z.string() })).max(3), page: z.number().optional() });
    expect(fieldsOf(inputJsonSchema(schema)).map((f) => [f.path.join('.'), f.required])).toEqual([
      ['items', true],
      ['items.0.name', true],
      ['page', false],
    ]);
  });
});
