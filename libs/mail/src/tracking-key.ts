import fs from 'node:fs';
import path from 'node:path';
import { createHash, randomBytes } from 'node:crypto';

/**
 * The key of tracking and unsubscribe tokens: `secret` (RENKEI_EMAIL_TRACKING_SECRET) when set (every
 * deployment that signs or checks tokens must share it), else a key made once and kept in
 * `<dataDir>/email-tracking.key` (the embedded install, where one process does both).
 */
export function emailTrackingKey(dataDir: string, secret: string | undefined): Buffer {
  if (secret) return createHash('sha256').update(secret).digest();
  const file = path.join(dataDir, 'email-tracking.key');
  try {
    return Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'hex');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  fs.mkdirSync(dataDir, { recursive: true });
  try {
    fs.writeFileSync(file, randomBytes(32).toString('hex'), { flag: 'wx', mode: 0o600 });
  } catch (error) {
    // Another process made it first: theirs is the key.
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  return Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'hex');
}
