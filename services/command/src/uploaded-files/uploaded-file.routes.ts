import fs from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { endpoints, type UploadedFile } from '@renkei/contracts';
import {
  fileUrlKey,
  signFileUrl,
  sniffContentType,
  sniffLength,
  type FileStorage,
  type StoredFile,
} from '@renkei/file-storage';
import { registerEndpoint } from '@renkei/service-kit';
import type { Database } from '@renkei/db';
import { stagedUploads } from '../shared/staged-upload.ts';
import { idempotentCreate } from '../shared/idempotency.ts';

export interface UploadedFileDeps {
  db: Database;
  storage: FileStorage;
  /** Where uploads are staged while they stream in (default `<RENKEI_DATA_DIR>/uploads`). */
  stagingDir?: string | undefined;
  /** Largest accepted file (default `maxUploadedFileBytes`). */
  maxFileBytes?: number | undefined;
  /** Key of the signed file links (default RENKEI_FILE_URL_SECRET or the key kept in RENKEI_DATA_DIR). */
  fileUrlKey?: Buffer | undefined;
}

/**
 * 10 MB: a phone photo is 2–6 MB and a scanned letter or a leaflet PDF a few MB; larger files are
 * not what a contact record is for, and every file is kept in the database.
 */
const maxUploadedFileBytes = 10 * 1024 * 1024;

/** A stored file as the API answers it: its link signed for a short while. */
export const toUploadedFile = (key: Buffer, file: StoredFile, now = new Date()): UploadedFile => ({
  id: file.id,
  url: signFileUrl(key, file, now),
  filename: file.filename,
});

async function readHead(filePath: string): Promise<Uint8Array> {
  const handle = await fs.promises.open(filePath, 'r');
  try {
    const head = Buffer.alloc(sniffLength);
    const { bytesRead } = await handle.read(head, 0, sniffLength, 0);
    return head.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/**
 * POST /uploaded_files: the file streams to a staging file (the data uploads' helper: 413 over the
 * limit, 422 without a file), its type is sniffed from its first bytes, and it is copied chunk by
 * chunk into the storage. It stays unreferenced until a communication or an email campaign names it,
 * and is removed a day later if none does (the worker's uploaded-files reactor).
 */
export async function registerUploadedFileRoutes(app: FastifyInstance, deps: UploadedFileDeps): Promise<void> {
  const stagingDir = deps.stagingDir ?? path.join(path.resolve(process.env.RENKEI_DATA_DIR ?? '.data'), 'uploads');
  let key = deps.fileUrlKey ?? null;
  await app.register(async (child) => {
    const uploads = await stagedUploads(child, {
      importsDir: stagingDir,
      maxFileBytes: deps.maxFileBytes ?? maxUploadedFileBytes,
    });
    registerEndpoint(child, endpoints.uploadFile, async ({ auth, request, reply }) => {
      const upload = uploads.identity(request);
      // A retry under the same Idempotency-Key (same name and content) answers the same file.
      return idempotentCreate(
        deps.db,
        { request, reply, tenantId: auth.tenantId, endpoint: endpoints.uploadFile.id, hashed: upload },
        async (fileId) => {
          key ??= fileUrlKey();
          // Stored by an attempt that died before its answer was kept: that file is the answer.
          const [earlier] = await deps.storage.find(auth.tenantId, [fileId]);
          if (earlier) return { body: toUploadedFile(key, earlier), position: null };
          const staged = uploads.staged(request);
          const stored = await deps.storage.put(
            {
              id: fileId,
              tenantId: auth.tenantId,
              filename: staged.filename,
              contentType: sniffContentType(await readHead(staged.path)),
              createdBy: auth.accountId,
            },
            fs.createReadStream(staged.path),
          );
          return { body: toUploadedFile(key, stored), position: null };
        },
      );
    });
  });
}
