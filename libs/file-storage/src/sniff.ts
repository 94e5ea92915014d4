/**
 * The content type of a file read from its first bytes, never from its name or the type the browser
 * sent: a `photo.jpg` that is really HTML must not be served as anything a browser would run.
 * Only what the app shows or is commonly attached is recognised; the rest is
 * `application/octet-stream`, which is always downloaded.
 */
export function sniffContentType(head: Uint8Array): string {
  const starts = (bytes: readonly number[], at = 0) => bytes.every((b, i) => head[at + i] === b);
  const ascii = (text: string, at = 0) =>
    starts(
      [...text].map((c) => c.charCodeAt(0)),
      at,
    );
  if (starts([0xff, 0xd8, 0xff])) return 'image/jpeg';
  if (starts([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png';
  if (ascii('GIF87a') || ascii('GIF89a')) return 'image/gif';
  if (ascii('RIFF') && ascii('WEBP', 8)) return 'image/webp';
  // iPhone photos: an ISO media file whose brand names HEIF.
  if (ascii('ftyp', 4) && ['heic', 'heix', 'hevc', 'heim', 'heis', 'mif1', 'msf1'].some((b) => ascii(b, 8)))
    return 'image/heic';
  if (ascii('%PDF-')) return 'application/pdf';
  // Office files (docx, xlsx, pptx) are zip archives; the name they are downloaded under keeps their kind.
  if (starts([0x50, 0x4b, 0x03, 0x04])) return 'application/zip';
  if (starts([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1])) return 'application/x-ole-storage';
  return 'application/octet-stream';
}

/** Bytes `sniffContentType` needs at most. */
export const sniffLength = 16;

/**
 * Types a browser may show in the page or a tab. Raster images cannot run code; PDF opens in the
 * browser's viewer. SVG (scripts), HTML and everything else are downloaded only.
 */
const inlineTypes = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp', 'application/pdf']);

export const isInlineSafe = (contentType: string): boolean => inlineTypes.has(contentType);

/** Whether the app shows the file as a thumbnail (browsers cannot all show HEIC). */
export const isImage = (contentType: string): boolean => isInlineSafe(contentType) && contentType.startsWith('image/');
