import type { Database } from '@renkei/db';
import { parseCommunicationEvent, parseEmailEvent } from '@renkei/domain';
import { createPostgresFileStorage, type FileStorage } from '@renkei/file-storage';
import type { RecordedEvent } from '@renkei/event-store';
import { defineReactor, repeatUntilAborted, type Reactor } from '@renkei/projections';

/** An uploaded file nothing references is removed after this long (issue 11: a day). */
const unreferencedFileLifetimeMs = 24 * 60 * 60 * 1000;

export interface UploadedFilesReactorOptions {
  /** Where files are kept (default: the database's `files` schema). */
  storage?: (db: Database) => FileStorage;
  /** How often unreferenced files are looked for (default hourly). */
  sweepIntervalMs?: number;
}

/** Removes the files nobody has referenced for a day as of `now`; answers how many. */
export const removeUnreferencedFiles = (storage: FileStorage, now: Date = new Date()) =>
  storage.removeUnreferenced(new Date(now.getTime() - unreferencedFileLifetimeMs));

/** The files an event of a communication or an email campaign leaves its record with (null: none of its business). */
function ownerFilesOf(recorded: RecordedEvent): { owner: string; fileIds: string[] } | null {
  if (recorded.type.startsWith('Communication')) {
    const event = parseCommunicationEvent(recorded);
    const owner = `communication:${event.data.communication_id}`;
    if (event.type === 'CommunicationCreated' || event.type === 'CommunicationUpdated')
      return { owner, fileIds: event.data.attachment_ids };
    if (event.type === 'CommunicationDeleted') return { owner, fileIds: [] };
    return null;
  }
  const event = parseEmailEvent(recorded);
  const owner = `email:${event.data.email_id}`;
  // A campaign's attachment is kept while its draft or sent email lives (a sent one is never deleted).
  if (event.type === 'EmailCreated' || event.type === 'EmailUpdated')
    return { owner, fileIds: event.data.attachment_id ? [event.data.attachment_id] : [] };
  if (event.type === 'EmailDeleted') return { owner, fileIds: [] };
  return null;
}

/**
 * Keeps which uploaded files each communication and email campaign references, from its events: the command service
 * sets the same right after each save, and this makes it certain (a crash between the append and
 * that call loses nothing; replays are harmless, a file's link only moves forward in the record's
 * revisions). Beside it, a sweep removes files nobody has referenced for a day.
 */
export function createUploadedFilesReactor(options: UploadedFilesReactorOptions = {}): Reactor {
  const storages = new WeakMap<Database, FileStorage>();
  const storageOf = (db: Database) => {
    let storage = storages.get(db);
    if (!storage) {
      storage = options.storage?.(db) ?? createPostgresFileStorage(db);
      storages.set(db, storage);
    }
    return storage;
  };
  const sweepIntervalMs = options.sweepIntervalMs ?? 60 * 60 * 1000;
  return defineReactor({
    name: 'uploaded_files',
    eventTypes: [
      'CommunicationCreated',
      'CommunicationUpdated',
      'CommunicationDeleted',
      'EmailCreated',
      'EmailUpdated',
      'EmailDeleted',
    ],
    async handle(events, { db }) {
      const storage = storageOf(db);
      for (const recorded of events) {
        const files = ownerFilesOf(recorded);
        if (files)
          await storage.setOwnerFiles(recorded.metadata.tenant_id, files.owner, files.fileIds, recorded.revision);
      }
    },
    async background({ db, signal, logger }) {
      const storage = storageOf(db);
      await repeatUntilAborted(
        signal,
        sweepIntervalMs,
        async () => {
          const removed = await removeUnreferencedFiles(storage);
          if (removed > 0) logger?.info({ removed }, 'unreferenced uploaded files removed');
        },
        (error) => logger?.error({ err: error }, 'sweep of unreferenced uploaded files failed; retrying later'),
      );
    },
  });
}
