import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import type { Plugin } from 'vite';

const brotli = promisify(brotliCompress);
const gzipped = promisify(gzip);

/** Text that compresses; fonts (woff2) and images are compressed already. */
const compressible = /\.(?:js|mjs|css|html|svg|json|txt|map)$/;
/** Below a packet's worth, the encoding header and a second file are not worth it. */
const minBytes = 1024;

/**
 * Writes `.br` and `.gz` beside every text file of the build, which the gateway sends to a browser that accepts
 * them (`@fastify/static`'s `preCompressed`). The first page of a phone on a clinic's car-park network was about
 * 1.5 MB of script and styles uncompressed; compressing once at build time costs the gateway nothing per request.
 * Brotli at quality 9: quality 11 saved another 8 % of the bytes but took seven times as long (7 s for the
 * whole build on this project's 2-core machines), and every e2e run builds.
 */
export function precompress(): Plugin {
  return {
    name: 'renkei-precompress',
    apply: 'build',
    async writeBundle(options, bundle) {
      const dir = options.dir;
      if (!dir) return;
      const files = Object.keys(bundle).filter((name) => compressible.test(name));
      await Promise.all(files.map((name) => compressFile(path.join(dir, name))));
    },
  };
}

/** Writes `file.br` and `file.gz` where they are smaller than `file`; answers which it wrote. */
export async function compressFile(file: string): Promise<Array<'br' | 'gz'>> {
  const data = await readFile(file);
  if (data.length < minBytes) return [];
  const [br, gz] = await Promise.all([
    brotli(data, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: 9,
        [constants.BROTLI_PARAM_SIZE_HINT]: data.length,
        [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
      },
    }),
    gzipped(data, { level: 9 }),
  ]);
  const written: Array<'br' | 'gz'> = [];
  for (const [suffix, body] of [
    ['br', br],
    ['gz', gz],
  ] as const) {
    if (body.length >= data.length) continue;
    await writeFile(`${file}.${suffix}`, body);
    written.push(suffix);
  }
  return written;
}
