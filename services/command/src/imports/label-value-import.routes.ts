import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { pipeline } from 'node:stream/promises';
import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { HttpError, endpoints, type ImportRecord } from '@renkei/contracts';
import { labelValueImportAggregate } from '@renkei/domain';
import { streamId, type EventStore } from '@renkei/event-store';
import { registerEndpoint } from '@renkei/service-kit';
import { eventMetadata } from '../shared/command-context.ts';
import { callerRef } from '../medical-institutions/crm-support.ts';

export interface LabelValueImportDeps {
  store: EventStore;
  /** Where uploaded files are kept (immutable): `<importsDir>/<tenant>/<import id>/<file>`. */
  importsDir: string;
  /** Largest accepted file (default 50 MiB). */
  maxFileBytes?: number;
}

interface StagedFile {
  path: string;
  filename: string;
  truncated: boolean;
}
const staged = new WeakMap<FastifyRequest, StagedFile>();

/**
 * POST /imports/medical_institution_label_values: the upload is streamed to disk (never held in
 * memory), kept read-only as the import's source of truth, and an import record is opened; the
 * worker's reactor does the parsing.
 */
export async function registerLabelValueImportRoutes(app: FastifyInstance, deps: LabelValueImportDeps): Promise<void> {
  const staging = path.join(deps.importsDir, '.staging');
  fs.mkdirSync(staging, { recursive: true });
  // Own encapsulated context: this multipart setup (stream to disk) applies to these routes only.
  await app.register(async (child) => {
    await child.register(multipart, {
      attachFieldsToBody: 'keyValues',
      limits: { files: 1, fileSize: deps.maxFileBytes ?? 50 * 1024 * 1024, fields: 10 },
      async onFile(this: FastifyRequest, part) {
        if (part.fieldname !== 'file') {
          part.file.resume();
          return;
        }
        const target = path.join(staging, randomUUID());
        await pipeline(part.file, fs.createWriteStream(target, { flags: 'wx' }));
        staged.set(this, {
          path: target,
          filename: path.basename(part.filename || 'upload.csv'),
          truncated: part.file.truncated,
        });
        part.value = '';
      },
    });
    // A request that failed after the upload (validation, auth) leaves no file behind.
    child.addHook('onResponse', async (request) => {
      const file = staged.get(request);
      if (file) fs.rmSync(file.path, { force: true });
    });
    registerEndpoint(child, endpoints.importLabelValues, async ({ body, auth, request, reply }) => {
      const file = staged.get(request);
      if (!file)
        throw new HttpError(422, undefined, { errors: [{ field: 'file', message: 'ファイルを選択してください' }] });
      if (file.truncated || fs.statSync(file.path).size === 0) {
        fs.rmSync(file.path, { force: true });
        throw new HttpError(422, undefined, {
          errors: [{ field: 'file', message: file.truncated ? 'ファイルが大きすぎます' : 'ファイルが空です' }],
        });
      }
      const importId = randomUUID();
      const dir = path.join(deps.importsDir, auth.tenantId, importId);
      fs.mkdirSync(dir, { recursive: true });
      const stored = path.join(dir, file.filename.replace(/[/\\]/g, '_'));
      fs.renameSync(file.path, stored);
      fs.chmodSync(stored, 0o444);
      const createdBy = await callerRef(deps.store, auth);
      const result = await deps.store.append(
        streamId(labelValueImportAggregate, importId),
        [
          {
            type: 'LabelValueImportRequested',
            data: {
              import_id: importId,
              filename: file.filename,
              stored_path: stored,
              encoding: body?.encoding ?? null,
            },
            metadata: eventMetadata(auth, request.id),
          },
        ],
        { expectedRevision: 'no_stream' },
      );
      reply.position(result.position);
      const record: ImportRecord = {
        id: importId,
        filename: file.filename,
        status: 'waiting',
        error_messages: [],
        imported_row_count: 0,
        failed_row_count: 0,
        unprocessed_row_count: 0,
        abortion_row_number: null,
        created_at: new Date().toISOString(),
        created_by: createdBy,
        import_type: 'medical_institution_label_value',
      };
      return record;
    });
  });
}
