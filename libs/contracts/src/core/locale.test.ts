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
    expect(m.id).toBe('IDの形式が正しくありません');
    expect(m.n).toBe('数値で指定してください');
  });

  it('says sizes and limits without naming types', () => {
    const first = (s: z.ZodType, v: unknown) => s.safeParse(v).error!.issues[0]!.message;
    expect(first(z.string().min(1), '')).toBe('入力してください');
    expect(first(z.string().max(5), 'abcdefg')).toBe('5文字以内で入力してください');
    expect(first(z.string().length(7), 'abc')).toBe('7文字で入力してください');
    expect(first(z.coerce.number().int().max(100), '500')).toBe('100以下で指定してください');
    expect(first(z.number().int().min(1), 0)).toBe('1以上で指定してください');
    expect(first(z.number().positive(), -1)).toBe('0より大きい値を指定してください');
    expect(first(z.number().int(), 1.5)).toBe('整数で指定してください');
    expect(first(z.array(z.string()).max(2), ['a', 'b', 'c'])).toBe('2件以内で指定してください');
    expect(first(z.array(z.string()).min(1), [])).toBe('1件以上指定してください');
    expect(first(z.enum(['LOW', 'HIGH']), 'x')).toBe('次のいずれかを指定してください: LOW、HIGH');
    expect(first(z.email(), 'x')).toBe('メールアドレスの形式で入力してください');
    expect(first(z.iso.date(), '2026-13-01')).toBe('日付はYYYY-MM-DD形式で入力してください');
  });
});

const randomId = '0b9f5c1e-2f7a-4c3b-9d1e-5a6b7c8d9e0f';
