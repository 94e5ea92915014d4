import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import fs from 'node:fs';
import {
  DataUploadType,
  HttpError,
  MappedListType,
  dataUploadMaxBytes,
  endpoints,
  formatUploadLimit,
  isWithdrawableDataUpload,
  type DataUploadRecord,
} from '@renkei/contracts';
import {
  ReferralDataImportType,
  mappingProfilesAggregate,
  referralDataImportAggregate,
  referralDataWithdrawalAggregate,
} from '@renkei/domain';
import type { Database } from '@renkei/db';
import { readStreamOrEmpty, streamId, type EventStore } from '@renkei/event-store';
import { registerEndpoint } from '@renkei/service-kit';
import { etagOf, revisionIfMatch } from '../shared/command-context.ts';
import { handleCommand } from '../shared/command-handler.ts';
import { readState } from '../shared/facts.ts';
import { openImport } from '../shared/import-upload.ts';
import { dataUploadDecider, mappingProfilesDecider } from './data-upload.decider.ts';
import { dataUploadWithdrawalDecider, type UploadFacts } from './data-upload-withdrawal.decider.ts';
import { deterministicId } from '../shared/deterministic-id.ts';
import { stagedUploads } from '../shared/staged-upload.ts';

export interface DataUploadDeps {
  db: Database;
  store: EventStore;
  /** Where uploaded files are kept (immutable): `<importsDir>/<tenant>/<import id>/<file>`. */
  importsDir?: string | undefined;
  /**
   * Largest accepted file per import type (default `dataUploadMaxBytes`: 99 MiB for the two lists, 2 GiB
   * for the DPC files); tests pass small ones. `RENKEI_DATA_UPLOAD_LIST_MAX_BYTES` and
   * `RENKEI_DATA_UPLOAD_DPC_MAX_BYTES` set them for a deployment.
   */
  maxFileBytes?: Partial<Record<DataUploadType, number>> | undefined;
}

function fileLimits(given: Partial<Record<DataUploadType, number>> = {}): Record<DataUploadType, number> {
  const fromEnv = (name: string) => {
    const value = Number(process.env[name]);
    return Number.isSafeInteger(value) && value > 0 ? value : undefined;
  };
  const list = fromEnv('RENKEI_DATA_UPLOAD_LIST_MAX_BYTES');
  const dpc = fromEnv('RENKEI_DATA_UPLOAD_DPC_MAX_BYTES');
  return Object.fromEntries(
    DataUploadType.options.map((type) => [
      type,
      given[type] ?? (MappedListType.safeParse(type).success ? list : dpc) ?? dataUploadMaxBytes[type],
    ]),
  ) as Record<DataUploadType, number>;
}

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

  registerEndpoint(app, endpoints.withdrawDataUpload, async ({ params, auth, request, reply }) => {
    const upload = await uploadFacts(store, auth.tenantId, params.id);
    if (upload && !isWithdrawableDataUpload(upload.importType))
      throw new HttpError(
        409,
        'D・EFファイルの取り込みは取り消せません。入院ごとに識別されるため、正しいファイルを取り込み直すと置き換わります。',
      );
    if (upload && !upload.finished)
      throw new HttpError(409, '取り込みの処理中は取り消せません。完了してからもう一度お試しください。');
    const result = await handleCommand(
      { store, auth, requestId: request.id },
      {
        stream: streamId(referralDataWithdrawalAggregate, params.id),
        decider: dataUploadWithdrawalDecider,
        command: { importId: params.id, upload },
        // Two owners withdrawing at once: the second finds it withdrawn (404).
        onRace: 'recompute',
        eventId: (i) => deterministicId(params.id, 'withdrawal', String(i)),
      },
    );
    if (result.position) reply.position(result.position);
    return null;
  });

  await app.register(async (child) => {
    const limits = fileLimits(deps.maxFileBytes);
    const largest = Math.max(...Object.values(limits));
    const uploads = await stagedUploads(child, {
      importsDir,
      maxFileBytes: largest,
      // The web client sends import_type before the file, so a list over its limit stops at once.
      limitOf: (fields) => {
        const type = DataUploadType.safeParse(fields.import_type);
        return type.success ? limits[type.data] : largest;
      },
    });
    registerEndpoint(child, endpoints.createDataUpload, async ({ body, auth, request, reply }) => {
      // A client that sent the type after the file was held to the largest limit while it streamed.
      const staged = uploads.staged(request);
      if (fs.statSync(staged.path).size > limits[body.import_type])
        throw new HttpError(413, `ファイルが大きすぎます（上限 ${formatUploadLimit(limits[body.import_type])}）。`);
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
          withdrawing: false,
        }),
      });
    });
  });
}

/**
 * What a withdrawal needs of an import's stream: its type and whether the worker finished it; null for
 * no import of this tenant. Only the stream's few status events are parsed, not its chunks of rows.
 */
async function uploadFacts(store: EventStore, tenantId: string, importId: string): Promise<UploadFacts | null> {
  const events = await readStreamOrEmpty(store, streamId(referralDataImportAggregate, importId), tenantId, [
    'ReferralDataImportRequested',
    'ReferralDataImportFinished',
  ]);
  const requested = events.find((e) => e.type === 'ReferralDataImportRequested');
  if (!requested) return null;
  const importType = ReferralDataImportType.parse((requested.data as { import_type: unknown }).import_type);
  return { importType, finished: events.some((e) => e.type === 'ReferralDataImportFinished') };
}
