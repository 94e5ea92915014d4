import type { FastifyInstance } from 'fastify';
import { endpoints, type ImportRecord } from '@renkei/contracts';
import { labelValueImportAggregate } from '@renkei/domain';
import type { Database } from '@renkei/db';
import type { EventStore } from '@renkei/event-store';
import { registerEndpoint } from '@renkei/service-kit';
import { openImport } from '../shared/import-upload.ts';
import { stagedUploads } from '../shared/staged-upload.ts';
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
    registerEndpoint(child, endpoints.importLabelValues, ({ body, auth, request, reply }) =>
      openImport({ db: deps.db, store: deps.store, auth, request, reply }, uploads, {
        endpoint: endpoints.importLabelValues.id,
        options: { encoding: body?.encoding ?? null },
        aggregate: labelValueImportAggregate,
        decider: labelValueImportDecider,
        command: ({ importId, filename, storedPath }) => ({
          importId,
          filename,
          storedPath,
          encoding: body?.encoding ?? null,
        }),
        eventIdTag: 'import',
        answer: (opened): ImportRecord => ({ ...opened, import_type: 'medical_institution_label_value' }),
      }),
    );
  });
}
