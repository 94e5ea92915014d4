import { describe, expect, it } from 'vitest';
import { csvField, japanDateTime } from './medical-institutions.export.ts';

describe('CSV fields', () => {
  it('writes a moment in Japan time: 23:30 UTC on the 30th is 08:30 on the 1st', () => {
    expect(japanDateTime('2026-11-30T23:30:00.000Z')).toBe('2026-12-01 08:30');
    expect(japanDateTime(new Date('2026-11-30T14:59:00Z'))).toBe('2026-11-30 23:59');
    expect(japanDateTime(null)).toBe('');
  });

  it('quotes what needs quoting and defuses cells a spreadsheet would run as formulas', () => {
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('=HYPERLINK("x")')).toBe(`"'=HYPERLINK(""x"")"`);
    expect(csvField('駿河クリニック')).toBe('駿河クリニック');
  });
});
