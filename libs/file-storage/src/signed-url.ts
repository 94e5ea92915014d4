import path from 'node:path';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { signingKey } from '@renkei/keys';

/** How long a file link answered by the API opens the file without sign-in. */
export const signedUrlSeconds = 30 * 60;

/** Public path of a file's content (outside /api: an `<img>` cannot send the bearer token). */
export const filePathPrefix = '/files/';

const signatureOf = (key: Buffer, tenantId: string, fileId: string, expires: number) =>
  createHmac('sha256', key).update(`${tenantId}\n${fileId}\n${expires}`).digest('base64url');

/**
 * A link to one file that works until `expires` (unix seconds) without sign-in. The signature binds
 * the tenant, the file and the expiry: changing any of them, or a key of another install, opens nothing.
 */
export function signFileUrl(
  key: Buffer,
  file: { tenantId: string; id: string },
  now: Date = new Date(),
  seconds = signedUrlSeconds,
): string {
  // Rounded up to the minute so answers within the same minute carry the same URL (browser caches).
  const expires = Math.ceil((now.getTime() / 1000 + seconds) / 60) * 60;
  return `${filePathPrefix}${file.id}?expires=${expires}&signature=${signatureOf(key, file.tenantId, file.id, expires)}`;
}

/** Whether a link's expiry and signature are good for this file of this tenant at `now`. */
export function verifyFileUrl(
  key: Buffer,
  file: { tenantId: string; id: string },
  expires: string | undefined,
  signature: string | undefined,
  now: Date = new Date(),
): boolean {
  if (!expires || !signature || !/^\d{1,12}$/.test(expires)) return false;
  const at = Number(expires);
  if (at * 1000 <= now.getTime()) return false;
  const expected = Buffer.from(signatureOf(key, file.tenantId, file.id, at));
  const given = Buffer.from(signature);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/**
 * The key of file links: from RENKEI_FILE_URL_SECRET when set (several machines must share it),
 * otherwise a random key kept in the data directory, made on first use.
 */
export function fileUrlKey(
  dataDir: string = path.resolve(process.env.RENKEI_DATA_DIR ?? '.data'),
  secret: string | undefined = process.env.RENKEI_FILE_URL_SECRET,
): Buffer {
  return signingKey({ secret: secret ? `file-url\n${secret}` : undefined, dataDir, file: 'file-url.key' });
}
