import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { compressFile } from './precompress.vite.ts';

describe('precompress', () => {
  const dirs: string[] = [];
  const tmp = () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'renkei-precompress-'));
    dirs.push(dir);
    return dir;
  };
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('writes brotli and gzip files that decompress to the original', async () => {
    const file = path.join(tmp(), 'main-abc.js');
    const source = 'export const 連携 = "地域医療連携室";\n'.repeat(200);
    writeFileSync(file, source);
    expect(await compressFile(file)).toEqual(['br', 'gz']);
    expect(brotliDecompressSync(readFileSync(`${file}.br`)).toString()).toBe(source);
    expect(gunzipSync(readFileSync(`${file}.gz`)).toString()).toBe(source);
    expect(readFileSync(`${file}.br`).length).toBeLessThan(source.length / 10);
  });

  it('leaves small files alone, and files that do not get smaller', async () => {
    const dir = tmp();
    const small = path.join(dir, 'small.js');
    writeFileSync(small, 'console.log(1)');
    expect(await compressFile(small)).toEqual([]);
    const random = path.join(dir, 'random.json');
    writeFileSync(random, randomBytes(4096));
    expect(await compressFile(random)).toEqual([]);
    expect(existsSync(`${random}.br`) || existsSync(`${random}.gz`)).toBe(false);
  });
});
