import fs from 'node:fs';
import path from 'node:path';
import { createHash, randomUUID } from 'node:crypto';
import { pipeline } from 'node:stream/promises';
import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { HttpError, formatUploadLimit } from '@renkei/contracts';

/** File names longer than this are refused (the name is shown on the import page and kept in the event). */
const maxFilenameLength = 255;
// What no event may carry (NUL) and what has no place in a file name (controls, UTF-16 halves).
const unstorable =
  // eslint-disable-next-line no-control-regex -- matching control characters is the point
  /[\u0000-\u001F\u007F-\u009F]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

interface StagedFile {
  path: string;
  filename: string;
  /** SHA-256 of the content, taken while it streamed in (what identifies a retried upload). */
  sha256?: string;
  /** Settles once nothing writes the staging file any more (its write stream closed). */
  settled?: Promise<unknown>;
  /** Stops a transfer still under way (a request answered before its body ended). */
  abort?: () => void;
}

export interface KeptUpload {
  filename: string;
  storedPath: string;
  importId: string;
}

/** A multipart body without a boundary cannot be read at all: say so (400) before the parser fails on it. */
export function refuseMultipartWithoutBoundary(child: FastifyInstance): void {
  child.addHook('preValidation', async (request) => {
    const type = request.headers['content-type'] ?? '';
    if (/^multipart\//i.test(type) && !/;\s*boundary=/i.test(type))
      throw new HttpError(400, 'ファイルを送信できませんでした（multipart の boundary がありません）。');
  });
}

/**
 * Multipart uploads streamed to disk inside `child` (an encapsulated context: this multipart setup
 * applies to its routes only). The file part `file` is written to a staging file while it arrives and
 * is never held in memory; over `maxFileBytes` the stream ends at once and the answer is 413 with the
 * staging file removed. A request that fails after the upload (validation, auth) leaves no file behind.
 * `keep` checks the file and moves it, read-only, to `<importsDir>/<tenant>/<import id>/<name>`, the
 * import's source of truth.
 */
export async function stagedUploads(
  child: FastifyInstance,
  options: {
    importsDir: string;
    maxFileBytes: number;
    /**
     * A tighter limit for this request, from the text fields sent before the file (an import type):
     * the transfer stops as soon as the file passes it. A route whose deciding field may come after the
     * file checks the staged size again.
     */
    limitOf?: (fields: Record<string, string>) => number;
  },
) {
  const staging = path.join(options.importsDir, '.staging');
  fs.mkdirSync(staging, { recursive: true });
  const staged = new WeakMap<FastifyRequest, StagedFile>();
  refuseMultipartWithoutBoundary(child);
  await child.register(multipart, {
    attachFieldsToBody: 'keyValues',
    limits: { files: 1, fileSize: options.maxFileBytes, fields: 10, fieldSize: 1024 },
    async onFile(this: FastifyRequest, part) {
      if (part.fieldname !== 'file') {
        part.file.resume();
        return;
      }
      const target = path.join(staging, randomUUID());
      const out = fs.createWriteStream(target, { flags: 'wx' });
      // Recorded first, so the file goes whatever happens below: the answer may be sent (a body cut off
      // is answered by the error handler) while this transfer is still opening or writing the file, so
      // the clean-up stops it and waits for the stream to close before removing the file.
      const entry: StagedFile = {
        path: target,
        filename: (part.filename || 'upload.csv').replace(unstorable, ''),
        settled: new Promise<void>((resolve) => out.once('close', () => resolve())),
        abort: () => part.file.destroy(),
      };
      staged.set(this, entry);
      const hash = createHash('sha256');
      const limit = Math.min(options.maxFileBytes, options.limitOf?.(textFields(part.fields)) ?? Infinity);
      const tooLarge = () => new HttpError(413, `ファイルが大きすぎます（上限 ${formatUploadLimit(limit)}）。`);
      let received = 0;
      try {
        await pipeline(
          part.file,
          async function* (source: AsyncIterable<Buffer>) {
            for await (const chunk of source) {
              received += chunk.length;
              // Over the limit the rest is read and dropped, not left unread: a request whose body is cut
              // off mid-stream leaves the gateway's connection to this service hanging for the next one.
              if (received > limit) continue;
              hash.update(chunk);
              yield chunk;
            }
          },
          out,
        );
        entry.sha256 = hash.digest('hex');
        if (received > limit) throw tooLarge();
      } catch {
        fs.rmSync(target, { force: true });
        if (received > limit) throw tooLarge();
        throw new HttpError(400, 'ファイルの送信が途中で途切れました。もう一度お試しください。');
      }
      if (part.file.truncated) {
        fs.rmSync(target, { force: true });
        throw tooLarge();
      }
      part.value = '';
    },
  });
  child.addHook('onResponse', async (request) => {
    const file = staged.get(request);
    if (!file) return;
    file.abort?.();
    await file.settled;
    fs.rmSync(file.path, { force: true });
  });

  /** The staged file checked: present, not empty, its name not too long. */
  function checked(request: FastifyRequest): StagedFile & { filename: string } {
    const file = staged.get(request);
    if (!file)
      throw new HttpError(422, undefined, { errors: [{ field: 'file', message: 'ファイルを選択してください' }] });
    if (!fs.existsSync(file.path) || fs.statSync(file.path).size === 0) {
      fs.rmSync(file.path, { force: true });
      throw new HttpError(422, undefined, { errors: [{ field: 'file', message: 'ファイルが空です' }] });
    }
    const filename = path.basename(file.filename.replace(/\\/g, '/')) || 'upload.csv';
    if (filename.length > maxFilenameLength)
      throw new HttpError(422, undefined, {
        errors: [{ field: 'file', message: `ファイル名は${maxFilenameLength}文字以内にしてください` }],
      });
    return { ...file, filename };
  }

  return {
    /** The staged file, checked like `keep`, for a route that stores it elsewhere; it goes after the answer. */
    staged(request: FastifyRequest): { path: string; filename: string } {
      const file = checked(request);
      return { path: file.path, filename: file.filename };
    },
    /** What identifies the upload (name and content), for an Idempotency-Key; refuses a file `keep` would. */
    identity(request: FastifyRequest): { filename: string; sha256: string | null } {
      const file = checked(request);
      return { filename: file.filename, sha256: file.sha256 ?? null };
    },
    keep(request: FastifyRequest, tenantId: string, importId: string = randomUUID()): KeptUpload {
      const { path: stagedPath, filename } = checked(request);
      const dir = path.join(options.importsDir, tenantId, importId);
      fs.mkdirSync(dir, { recursive: true });
      // Most file systems allow 255 bytes per name: a longer (Japanese) name is kept in the event only.
      const storedPath = path.join(
        dir,
        Buffer.byteLength(filename) <= 200 ? filename : `upload${path.extname(filename).slice(0, 10)}`,
      );
      fs.renameSync(stagedPath, storedPath);
      fs.chmodSync(storedPath, 0o444);
      return { filename, storedPath, importId };
    },
  };
}

/** The text fields of a multipart request received so far (a file part's `fields`). */
function textFields(fields: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, field] of Object.entries((fields ?? {}) as Record<string, unknown>)) {
    const value = (Array.isArray(field) ? field[0] : field) as { type?: string; value?: unknown } | undefined;
    if (value?.type === 'field' && typeof value.value === 'string') out[key] = value.value;
  }
  return out;
}

export type StagedUploads = Awaited<ReturnType<typeof stagedUploads>>;
