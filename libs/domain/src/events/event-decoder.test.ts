import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { eventDecoder, UndecodableEventError } from './event-decoder.ts';

const decode = eventDecoder({
  Counted: z.object({ n: z.number().int() }),
  Renamed: z.object({ name: z.string(), note: z.string().default('') }),
});
const stored = (type: string, data: unknown, schema_version = 1) => ({ type, data, metadata: { schema_version } });

describe('eventDecoder', () => {
  it('reads a known event as its member of the union, with schema defaults filled in', () => {
    const event = decode(stored('Renamed', { name: 'a' }));
    expect(event).toEqual({ type: 'Renamed', data: { name: 'a', note: '' } });
    expect(decode.types).toEqual(['Counted', 'Renamed']);
  });

  it('refuses an unknown type, an unknown schema version and data that fails the schema', () => {
    expect(() => decode(stored('Deleted', {}))).toThrow(UndecodableEventError);
    expect(() => decode(stored('Counted', { n: 1 }, 2))).toThrow(/schema version 2/);
    expect(() => decode(stored('Counted', { n: 'one' }))).toThrow(/Counted/);
  });
});
