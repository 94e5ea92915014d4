import fs from 'node:fs';
import path from 'node:path';
import { createHash, randomBytes } from 'node:crypto';

/**
 * A key for signing links and tokens: the SHA-256 of `secret` when one is set (every process that
 * signs or checks must share it), else 32 random bytes made on first use and kept in
 * `<dataDir>/<file>` (mode 0600), which every process of an install on one machine shares.
 */
export function signingKey(options: { secret: string | undefined; dataDir: string; file: string }): Buffer {
  if (options.secret) return createHash('sha256').update(options.secret).digest();
  const file = path.join(options.dataDir, options.file);
  try {
    return Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'hex');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  fs.mkdirSync(options.dataDir, { recursive: true });
  try {
    fs.writeFileSync(file, randomBytes(32).toString('hex'), { flag: 'wx', mode: 0o600 });
  } catch (error) {
    // Another process made it first: theirs is the key.
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  return Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'hex');
}
