import type { FastifyInstance } from 'fastify';
import { endpoints, type ImportRecord } from '@renkei/contracts';
import { labelValueImportAggregate } from '@renkei/domain';
import type { Database } from '@renkei/db';
import { streamId, type EventStore } from '@renkei/event-store';
import { registerEndpoint } from '@renkei/service-kit';
import { stagedUploads } from '../data-uploads/staged-upload.ts';
import { handleCommand } from '../shared/command-handler.ts';
import { deterministicId } from '../shared/deterministic-id.ts';
import { idempotentCreate } from '../shared/idempotency.ts';
import { callerRef } from '../shared/facts.ts';
import { labelValueImportDecider } from './label-value-import.decider.ts';

export interface LabelValueImportDeps {
  db: Database;
  store: EventStore;
  /** Where uploaded files are kept (immutable): `<importsDir>/<tenant>/<import id>/<file>`. */
  importsDir: string;
  /** Largest accepted file (default RENKEI_LABEL_VALUE_IMPORT_MAX_BYTES, else 50 MiB). */
  maxFileBytes?: number;
}

const defaultMaxFileBytes = 50 * 1024 * 1024;

/**
 * POST /imports/medical_institution_label_values: the upload is streamed to disk (never held in
 * memory), kept read-only as the import's source of truth, and an import record is opened; the
 * worker's reactor does the parsing.
 */
export async function registerLabelValueImportRoutes(app: FastifyInstance, deps: LabelValueImportDeps): Promise<void> {
  const maxFileBytes =
    deps.maxFileBytes ?? (Number(process.env.RENKEI_LABEL_VALUE_IMPORT_MAX_BYTES) || defaultMaxFileBytes);
  await app.register(async (child) => {
    const uploads = await stagedUploads(child, { importsDir: deps.importsDir, maxFileBytes });
    registerEndpoint(child, endpoints.importLabelValues, async ({ body, auth, request, reply }) => {
      const upload = uploads.identity(request);
      const createdBy = await callerRef(deps.store, auth);
      return idempotentCreate(
        deps.db,
        {
          request,
          reply,
          tenantId: auth.tenantId,
          endpoint: endpoints.importLabelValues.id,
          // The same file (name and content) with the same options is the same import.
          hashed: { ...upload, encoding: body?.encoding ?? null },
        },
        async (importId, retryable) => {
          const { filename, storedPath: stored } = uploads.keep(request, auth.tenantId, importId);
          const result = await handleCommand(
            { store: deps.store, auth, requestId: request.id },
            {
              stream: streamId(labelValueImportAggregate, importId),
              decider: labelValueImportDecider,
              command: { importId, filename, storedPath: stored, encoding: body?.encoding ?? null },
              isNew: true,
              onRace: 'conflict',
              ...(retryable
                ? { eventId: (i: number) => deterministicId(importId, 'import', retryable.hash, String(i)) }
                : {}),
            },
          );
          const record: ImportRecord = {
            id: importId,
            filename,
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
          return { body: record, position: result.position };
        },
      );
    });
  });
}
