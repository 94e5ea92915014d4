import fs from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { endpoints, type DataUploadRecord } from '@renkei/contracts';
import { mappingProfilesAggregate, referralDataImportAggregate } from '@renkei/domain';
import type { Database } from '@renkei/db';
import { streamId, type EventStore } from '@renkei/event-store';
import { registerEndpoint } from '@renkei/service-kit';
import { etagOf, revisionIfMatch } from '../shared/command-context.ts';
import { handleCommand } from '../shared/command-handler.ts';
import { deterministicId } from '../shared/deterministic-id.ts';
import { callerRef, readState } from '../shared/facts.ts';
import { idempotentCreate } from '../shared/idempotency.ts';
import { dataUploadDecider, mappingProfilesDecider } from './data-upload.decider.ts';
import { stagedUploads } from './staged-upload.ts';

export interface DataUploadDeps {
  db: Database;
  store: EventStore;
  /** Where uploaded files are kept (immutable): `<importsDir>/<tenant>/<import id>/<file>`. */
  importsDir?: string | undefined;
  /** Largest accepted file (default 99 MiB: the gateway takes 100 MiB of multipart, framing included). */
  maxFileBytes?: number | undefined;
}

const defaultMaxFileBytes = 99 * 1024 * 1024;

/** `If-Match` on a per-tenant stream (mapping profiles, institution matches): its revision, `-1` before the first save. */
export function profilesIfMatch(header: string | string[] | undefined) {
  const value = Array.isArray(header) ? header[0] : header;
  if (value !== undefined && /^(?:W\/)?"?-1"?$/.test(value.trim()))
    return { matches: (_: unknown, revision: number) => revision === -1 };
  return revisionIfMatch(header);
}

/**
 * POST /data_uploads (the referral data files of issue 12) and the saved column mappings of the two
 * lists. Owners only (the registry says so): an upload changes every figure of the tenant.
 */
export async function registerDataUploadRoutes(app: FastifyInstance, deps: DataUploadDeps): Promise<void> {
  const { store } = deps;
  const importsDir = deps.importsDir ?? path.join(process.env.RENKEI_DATA_DIR ?? path.resolve('.data'), 'imports');
  const profilesStream = (tenantId: string) => streamId(mappingProfilesAggregate, tenantId);

  registerEndpoint(app, endpoints.replaceMappingProfiles, async ({ body, auth, request, reply }) => {
    const result = await handleCommand(
      { store, auth, requestId: request.id },
      {
        stream: profilesStream(auth.tenantId),
        decider: mappingProfilesDecider,
        command: { profiles: body.profiles },
        // The version answered is the stream's revision (-1 before the first save).
        ifMatch: profilesIfMatch(request.headers['if-match']),
        onRace: 'conflict',
      },
    );
    if (result.position) reply.position(result.position);
    void reply.header('etag', etagOf(result.revision));
    return { profiles: result.after, version: result.revision };
  });

  await app.register(async (child) => {
    const uploads = await stagedUploads(child, { importsDir, maxFileBytes: deps.maxFileBytes ?? defaultMaxFileBytes });
    registerEndpoint(child, endpoints.createDataUpload, async ({ body, auth, request, reply }) => {
      const upload = uploads.identity(request);
      const [createdBy, profiles] = await Promise.all([
        callerRef(store, auth),
        readState(store, auth.tenantId, profilesStream(auth.tenantId), mappingProfilesDecider),
      ]);
      return idempotentCreate(
        deps.db,
        {
          request,
          reply,
          tenantId: auth.tenantId,
          endpoint: endpoints.createDataUpload.id,
          // The same file (name and content) of the same type read with the same mapping is the same upload.
          hashed: { ...upload, import_type: body.import_type, mapping_profile_id: body.mapping_profile_id ?? null },
        },
        async (importId, retryable) => {
          const { filename, storedPath } = uploads.keep(request, auth.tenantId, importId);
          const result = await handleCommand(
            { store, auth, requestId: request.id },
            {
              stream: streamId(referralDataImportAggregate, importId),
              decider: dataUploadDecider,
              command: {
                importId,
                importType: body.import_type,
                filename,
                storedPath,
                mappingProfileId: body.mapping_profile_id ?? null,
                profiles: profiles.state,
              },
              isNew: true,
              onRace: 'conflict',
              ...(retryable
                ? { eventId: (i: number) => deterministicId(importId, 'upload', retryable.hash, String(i)) }
                : {}),
            },
          ).catch((error: unknown) => {
            // A refused upload (an unknown mapping) keeps no file.
            fs.rmSync(path.dirname(storedPath), { recursive: true, force: true });
            throw error;
          });
          const record: DataUploadRecord = {
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
            import_type: body.import_type,
            total_row_count: 0,
            new_record_count: 0,
            updated_record_count: 0,
            unchanged_record_count: 0,
            unmatched_row_count: 0,
            unmatched_institutions: [],
          };
          return { body: record, position: result.position };
        },
      );
    });
  });
}
