import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { signingKey } from './signing-key.ts';

const dirs: string[] = [];
const tempDir = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'renkei-keys-'));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

describe('signingKey', () => {
  it('derives the key from the secret and writes no file', () => {
    const dataDir = tempDir();
    const key = signingKey({ secret: 'shared secret', dataDir, file: 'a.key' });
    expect(key).toEqual(createHash('sha256').update('shared secret').digest());
    expect(fs.existsSync(path.join(dataDir, 'a.key'))).toBe(false);
  });

  it('makes a random key once, kept private in the data directory, and answers it again', () => {
    const dataDir = path.join(tempDir(), 'not-yet');
    const first = signingKey({ secret: undefined, dataDir, file: 'a.key' });
    expect(first).toHaveLength(32);
    expect(fs.statSync(path.join(dataDir, 'a.key')).mode & 0o777).toBe(0o600);
    expect(signingKey({ secret: '', dataDir, file: 'a.key' })).toEqual(first);
    expect(signingKey({ secret: undefined, dataDir, file: 'b.key' })).not.toEqual(first);
  });
});
