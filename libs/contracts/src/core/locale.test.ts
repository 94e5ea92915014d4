import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import '../index.ts';
import { Id } from './zod-helpers.ts';

describe('validation messages', () => {
  it('are Japanese for zod’s built-in checks once the contracts are loaded', () => {
    const message = Id.safeParse('not-a-uuid').error!.issues[0]!.message;
    expect(message).toMatch(/[ぁ-んァ-ン一-龯]/);
    const typeMessage = z.object({ name: z.string() }).safeParse({ name: 1 }).error!.issues[0]!.message;
    expect(typeMessage).toMatch(/[ぁ-んァ-ン一-龯]/);
  });
});
