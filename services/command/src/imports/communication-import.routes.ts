import type { FastifyInstance } from 'fastify';
import { HttpError, endpoints, type ImportRecord } from '@renkei/contracts';
import { communicationAggregate, communicationImportAggregate } from '@renkei/domain';
import type { Database } from '@renkei/db';
import { streamId, type EventStore } from '@renkei/event-store';
import { registerEndpoint, type AuthContext } from '@renkei/service-kit';
import { communicationDecider } from '../communications/communication.decider.ts';
import { importedBeginning } from '../communications/imported-communications.ts';
import { handleCommand } from '../shared/command-handler.ts';
import { deterministicId } from '../shared/deterministic-id.ts';
import { readState } from '../shared/facts.ts';
import { openImport } from '../shared/import-upload.ts';
import { stagedUploads } from '../shared/staged-upload.ts';
import { communicationImportDecider, importRunning } from './communication-import.decider.ts';
import { restoreChanged } from './communication-import-undo.ts';

export interface CommunicationImportDeps {
  db: Database;
  store: EventStore;
  /** Where uploaded files are kept (immutable): `<importsDir>/<tenant>/<import id>/<file>`. */
  importsDir: string;
  /** Largest accepted file (default 50 MiB, as the label-value import). */
  maxFileBytes?: number;
}

const defaultMaxFileBytes = 50 * 1024 * 1024;
/** Records deleted at once by an undo (each its own command; the store's group commit joins them). */
const undoBatch = 50;

/**
 * POST (new records) and PUT (changes to records named by id) /imports/communications: the upload is
 * streamed to disk, kept read-only, and an import record is opened; the worker's reactor does the rest.
 * DELETE undoes a finished import: every record it created is deleted, and every record it changed gets
 * its previous values back (communication-import-undo.ts), through the communication's own decider;
 * then the import leaves the history.
 */
export async function registerCommunicationImportRoutes(
  app: FastifyInstance,
  deps: CommunicationImportDeps,
): Promise<void> {
  const { db, store } = deps;
  await app.register(async (child) => {
    const uploads = await stagedUploads(child, {
      importsDir: deps.importsDir,
      maxFileBytes: deps.maxFileBytes ?? defaultMaxFileBytes,
    });
    for (const [endpoint, mode] of [
      [endpoints.importCommunications, 'create'],
      [endpoints.importCommunicationUpdates, 'update'],
    ] as const) {
      registerEndpoint(child, endpoint, ({ body, auth, request, reply }) => {
        const encoding = body?.encoding ?? null;
        return openImport({ db, store, auth, request, reply }, uploads, {
          endpoint: endpoint.id,
          options: { encoding },
          aggregate: communicationImportAggregate,
          decider: communicationImportDecider,
          command: ({ importId, filename, storedPath }) => ({
            type: 'RequestCommunicationImport' as const,
            importId,
            filename,
            storedPath,
            encoding,
            mode,
          }),
          eventIdTag: 'import',
          answer: (opened): ImportRecord => ({
            ...opened,
            import_type: mode === 'create' ? 'communication' : 'communication_update',
          }),
        });
      });
    }
  });

  registerEndpoint(app, endpoints.deleteCommunicationImport, async ({ params, auth, request, reply }) => {
    const importStream = streamId(communicationImportAggregate, params.id);
    const { state } = await readState(store, auth.tenantId, importStream, communicationImportDecider);
    if (state.status === 'absent' || state.status === 'deleted') throw new HttpError(404);
    if (importRunning(state))
      throw new HttpError(409, 'インポートの処理中は取り消せません。完了してからもう一度お試しください。');
    await restoreChanged(store, auth, request.id, params.id, state.changedIds);
    for (let i = 0; i < state.createdIds.length; i += undoBatch)
      await Promise.all(
        state.createdIds.slice(i, i + undoBatch).map((id) => deleteCreated(db, store, auth, request.id, params.id, id)),
      );
    // A crash before this line leaves the import undoable again: deleted records are skipped.
    const result = await handleCommand(
      { store, auth, requestId: request.id },
      {
        stream: importStream,
        decider: communicationImportDecider,
        command: { type: 'DeleteCommunicationImport', importId: params.id },
        onRace: 'conflict',
        eventId: (i) => deterministicId(params.id, 'import-deleted', String(i)),
      },
    );
    if (result.position) reply.position(result.position);
    return null;
  });
}

/** One created record deleted as DELETE /communications/{id} does; one deleted meanwhile is skipped. */
async function deleteCreated(
  db: Database,
  store: EventStore,
  auth: AuthContext,
  requestId: string,
  importId: string,
  communicationId: string,
): Promise<void> {
  try {
    await handleCommand(
      { store, auth, requestId },
      {
        stream: streamId(communicationAggregate, communicationId),
        decider: communicationDecider,
        command: { type: 'DeleteCommunication', communicationId },
        // A record never written since its import begins its stream with the delete.
        adopt: () => importedBeginning(db, store, auth.tenantId, communicationId),
        // Someone's comment or edit since the import does not stop the undo.
        onRace: 'recompute',
        eventId: (i) => deterministicId(importId, 'undo', communicationId, String(i)),
      },
    );
  } catch (error) {
    if (!(error instanceof HttpError && error.status === 404)) throw error;
  }
}
