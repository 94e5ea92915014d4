import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { HttpError, endpoints, type UploadedFile } from '@renkei/contracts';
import {
  filePathPrefix,
  isImage,
  isInlineSafe,
  signFileUrl,
  verifyFileUrl,
  type FileStorage,
  type StoredFile,
} from '@renkei/file-storage';
import { registerEndpoint } from '@renkei/service-kit';

export interface UploadedFileQueryDeps {
  storage: FileStorage;
  /** Key of the signed file links (shared with the command service). */
  fileUrlKey: () => Buffer;
}

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** `filename*` (RFC 6266/5987) keeps a Japanese name; the plain `filename` is an ASCII fallback. */
function contentDisposition(kind: 'inline' | 'attachment', filename: string): string {
  const ascii = filename.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  const encoded = encodeURIComponent(filename).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `${kind}; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}

/**
 * Sends a stored file. Its type is the one sniffed from its bytes when stored; only raster images and
 * PDF are shown inline, everything else is a download, and `nosniff` keeps the browser from guessing
 * otherwise. The sandbox policy keeps anything opened from running in the app's origin.
 */
function sendFile(reply: FastifyReply, storage: FileStorage, file: StoredFile, cacheSeconds: number) {
  const inline = isInlineSafe(file.contentType);
  void reply
    .header('content-type', file.contentType)
    .header('content-length', String(file.size))
    .header('x-content-type-options', 'nosniff')
    .header('content-disposition', contentDisposition(inline ? 'inline' : 'attachment', file.filename))
    .header('cache-control', cacheSeconds > 0 ? `private, max-age=${cacheSeconds}` : 'private, no-store')
    .header(
      'content-security-policy',
      // Chrome's PDF viewer does not open under a sandbox; a PDF runs no script in the page's origin anyway.
      file.contentType === 'application/pdf'
        ? "default-src 'none'; frame-ancestors 'self'"
        : "default-src 'none'; sandbox",
    );
  return reply.send(Readable.from(storage.read(file)));
}

/**
 * A file's content two ways: `GET /api/uploaded_files/{id}` for a signed-in caller of the file's
 * tenant (another tenant's id is a 404), and `GET /files/{id}?expires=…&signature=…`, the link the
 * API answers, without sign-in until it expires (an `<img>` cannot send the token). A forged,
 * altered or expired link is a 404 like an unknown file: it tells nothing about what exists.
 */
export function registerUploadedFileQueryRoutes(app: FastifyInstance, deps: UploadedFileQueryDeps): void {
  const { storage } = deps;
  registerEndpoint(app, endpoints.downloadUploadedFile, async ({ params, auth, reply }) => {
    const [file] = await storage.find(auth.tenantId, [params.id]);
    if (!file) throw new HttpError(404);
    return sendFile(reply, storage, file, 0) as unknown as string;
  });

  app.get<{ Params: { id: string }; Querystring: { expires?: string; signature?: string } }>(
    `${filePathPrefix}:id`,
    async (request, reply) => {
      const { id } = request.params;
      const { expires, signature } = request.query;
      const file = uuid.test(id) ? await storage.findAnyTenant(id) : null;
      const now = new Date();
      if (!file || !verifyFileUrl(deps.fileUrlKey(), file, expires, signature, now)) throw new HttpError(404);
      // An image's signed link is also a campaign mail's image (email-images.ts), fetched by the reader's
      // mail client from another origin: helmet's `same-origin` resource policy had the browser block it.
      // The link itself is the permission; nothing else of the file is readable cross-origin.
      if (isImage(file.contentType)) void reply.header('cross-origin-resource-policy', 'cross-origin');
      return sendFile(reply, storage, file, Math.max(0, Number(expires) - Math.ceil(now.getTime() / 1000)));
    },
  );
}

/**
 * The attachments of these communications by record id: their files, in order, with fresh signed links
 * (records without any are absent).
 */
export async function attachmentsOf(
  deps: UploadedFileQueryDeps,
  tenantId: string,
  communicationIds: readonly string[],
): Promise<Map<string, UploadedFile[]>> {
  const by = new Map<string, UploadedFile[]>();
  if (communicationIds.length === 0) return by;
  const files = await deps.storage.filesOf(
    tenantId,
    communicationIds.map((id) => `communication:${id}`),
  );
  const key = deps.fileUrlKey();
  const now = new Date();
  for (const [owner, list] of files)
    by.set(
      owner.slice('communication:'.length),
      list.map((f) => ({ id: f.id, url: signFileUrl(key, f, now), filename: f.filename })),
    );
  return by;
}
