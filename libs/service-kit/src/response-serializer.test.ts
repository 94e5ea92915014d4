import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { isResponseSerializationError } from 'fastify-type-provider-zod';
import { responseSerializerCompiler } from './response-serializer.ts';

const schema = z.object({
  id: z.uuid(),
  when: z.iso.date(),
  user: z.object({ id: z.string(), name: z.string() }).nullable(),
  tags: z.array(z.object({ name: z.string() })),
});
const serialize = responseSerializerCompiler({ schema, method: 'GET', url: '/api/things', httpStatus: '200' });
const valid = {
  id: '7d3c2d8e-8f4e-4a55-9a3e-1c1d1e1f1a1b',
  when: '2025-10-01',
  user: { id: 'a', name: '連携 太郎' },
  tags: [{ name: '重要' }],
};

describe('responseSerializerCompiler', () => {
  it('writes a response that fits its contract as JSON, in the contract order', () => {
    const { tags, ...rest } = valid;
    expect(serialize({ tags, ...rest })).toBe(JSON.stringify(valid));
  });

  it('leaves out whatever the contract does not name, at every depth', () => {
    const leaky = {
      ...valid,
      tenant_id: 'x',
      user: { ...valid.user, password_hash: 'y' },
      tags: [{ name: '重要', secret: 1 }],
    };
    expect(JSON.parse(serialize(leaky))).toEqual(valid);
  });

  it('refuses a response that breaks its contract (the error handler answers 500)', () => {
    for (const broken of [
      { ...valid, when: '2025/10/01' },
      { ...valid, user: undefined },
      { ...valid, tags: null },
    ]) {
      let thrown: unknown;
      try {
        serialize(broken);
      } catch (error) {
        thrown = error;
      }
      expect(isResponseSerializationError(thrown)).toBe(true);
    }
  });
});
