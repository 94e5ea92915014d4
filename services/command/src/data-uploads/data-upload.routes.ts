import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { endpoints, type DataUploadRecord } from '@renkei/contracts';
import { mappingProfilesAggregate, referralDataImportAggregate } from '@renkei/domain';
import type { Database } from '@renkei/db';
import { streamId, type EventStore } from '@renkei/event-store';
import { registerEndpoint } from '@renkei/service-kit';
import { etagOf, revisionIfMatch } from '../shared/command-context.ts';
import { handleCommand } from '../shared/command-handler.ts';
import { readState } from '../shared/facts.ts';
import { openImport } from '../shared/import-upload.ts';
import { dataUploadDecider, mappingProfilesDecider } from './data-upload.decider.ts';
import { stagedUploads } from '../shared/staged-upload.ts';

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
      const mappingProfileId = body.mapping_profile_id ?? null;
      const profiles = await readState(store, auth.tenantId, profilesStream(auth.tenantId), mappingProfilesDecider);
      return openImport({ db: deps.db, store, auth, request, reply }, uploads, {
        endpoint: endpoints.createDataUpload.id,
        // The same file (name and content) of the same type read with the same mapping is the same upload.
        options: { import_type: body.import_type, mapping_profile_id: mappingProfileId },
        aggregate: referralDataImportAggregate,
        decider: dataUploadDecider,
        command: ({ importId, filename, storedPath }) => ({
          importId,
          importType: body.import_type,
          filename,
          storedPath,
          mappingProfileId,
          profiles: profiles.state,
        }),
        eventIdTag: 'upload',
        // A refused upload (an unknown mapping) keeps no file.
        discardRefused: true,
        answer: (opened): DataUploadRecord => ({
          ...opened,
          import_type: body.import_type,
          total_row_count: 0,
          new_record_count: 0,
          updated_record_count: 0,
          unchanged_record_count: 0,
          unmatched_row_count: 0,
          unmatched_institutions: [],
        }),
      });
    });
  });
}
