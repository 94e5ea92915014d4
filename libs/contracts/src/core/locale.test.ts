import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import './locale.ts';

describe('validation messages', () => {
  const schema = z.object({
    name: z.string(),
    id: z.uuid(),
    note: z.string('メモは文字列で指定してください'),
    n: z.number(),
  });
  const messages = (input: unknown) =>
    Object.fromEntries(schema.safeParse(input).error!.issues.map((i) => [i.path.join('.'), i.message]));

  it('asks for a field left out in plain Japanese', () => {
    expect(messages({ id: randomId, note: 'x', n: 1 })).toEqual({ name: '入力してください' });
  });

  it('says a query parameter that is no number plainly', () => {
    expect(z.object({ page: z.coerce.number().int() }).safeParse({ page: 'abc' }).error!.issues[0]!.message).toBe(
      '数値で指定してください',
    );
  });

  it("keeps the schema's own message, and the locale's Japanese for a value of the wrong type", () => {
    const m = messages({ name: 'a', id: 'x', n: '1' });
    expect(m.note).toBe('メモは文字列で指定してください');
    expect(m.id).toBe('無効なUUID');
    expect(m.n).toMatch(/^無効な入力: 数値が期待されましたが/);
  });
});

const randomId = '0b9f5c1e-2f7a-4c3b-9d1e-5a6b7c8d9e0f';
