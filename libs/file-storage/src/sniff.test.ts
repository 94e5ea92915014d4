import { describe, expect, it } from 'vitest';
import { isInlineSafe, sniffContentType } from './sniff.ts';

const bytes = (...parts: (number[] | string)[]) =>
  Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'latin1') : Buffer.from(p))));

describe('sniffContentType', () => {
  it('names what the first bytes are', () => {
    expect(sniffContentType(bytes([0xff, 0xd8, 0xff, 0xe1]))).toBe('image/jpeg');
    expect(sniffContentType(bytes([0x89], 'PNG\r\n\x1a\n'))).toBe('image/png');
    expect(sniffContentType(bytes('GIF89a'))).toBe('image/gif');
    expect(sniffContentType(bytes('RIFF', [0, 0, 0, 0], 'WEBPVP8 '))).toBe('image/webp');
    expect(sniffContentType(bytes([0, 0, 0, 0x18], 'ftypheic'))).toBe('image/heic');
    expect(sniffContentType(bytes('%PDF-1.7'))).toBe('application/pdf');
    expect(sniffContentType(bytes('PK', [3, 4]))).toBe('application/zip');
  });

  it('calls anything else (HTML, SVG, text, too short) a plain download', () => {
    for (const head of ['<html><script>', '<svg xmlns="http://www.w3.org/2000/svg">', 'hello', '', '%PD'])
      expect(sniffContentType(bytes(head)), head).toBe('application/octet-stream');
  });

  it('shows inline only raster images and PDF', () => {
    expect(['image/jpeg', 'image/png', 'image/gif', 'image/webp', 'application/pdf'].every(isInlineSafe)).toBe(true);
    for (const t of ['image/svg+xml', 'text/html', 'image/heic', 'application/zip', 'application/octet-stream'])
      expect(isInlineSafe(t), t).toBe(false);
  });
});
