import { createHash } from 'node:crypto';
import { maxLogoBytes, unprocessable } from '@renkei/contracts';

/**
 * The image types a logo may have, told by their first bytes. SVG is not among them: it is a document
 * that can carry script, and a logo needs none of that.
 */
const signatures: { type: string; matches: (b: Buffer) => boolean }[] = [
  {
    type: 'image/png',
    matches: (b) => b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])),
  },
  { type: 'image/jpeg', matches: (b) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff },
  { type: 'image/gif', matches: (b) => ['GIF87a', 'GIF89a'].includes(b.subarray(0, 6).toString('latin1')) },
  {
    type: 'image/webp',
    matches: (b) => b.subarray(0, 4).toString('latin1') === 'RIFF' && b.subarray(8, 12).toString('latin1') === 'WEBP',
  },
];

export interface LogoImage {
  contentType: string;
  data: Buffer;
  /** Short hash of the bytes: the logo's version in its URL. */
  version: string;
}

/** Decodes and checks an uploaded logo (base64): its type is read from the bytes, never trusted from the client. */
export function readLogo(base64: string): LogoImage {
  const data = Buffer.from(base64, 'base64');
  if (data.length === 0) throw unprocessable([{ field: 'data', message: 'ロゴ画像を選んでください' }]);
  if (data.length > maxLogoBytes) {
    throw unprocessable([{ field: 'data', message: `ロゴ画像は${maxLogoBytes / 1024}KB以下にしてください` }]);
  }
  const kind = signatures.find((s) => s.matches(data));
  if (!kind) {
    throw unprocessable([{ field: 'data', message: 'ロゴ画像はPNG・JPEG・GIF・WebPのいずれかにしてください' }]);
  }
  return { contentType: kind.type, data, version: createHash('sha256').update(data).digest('hex').slice(0, 16) };
}

/** The logo's URL under /api as the current user and the settings carry it; null without a logo. */
export function logoPath(version: string | null): string | null {
  return version ? `/tenant_logo?v=${version}` : null;
}
