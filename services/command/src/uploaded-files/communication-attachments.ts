import type { Communication } from '@renkei/contracts';
import type { Database } from '@renkei/db';
import { vocAggregate } from '@renkei/domain';
import { streamId, type EventStore } from '@renkei/event-store';
import type { FileStorage } from '@renkei/file-storage';
import type { CommunicationState } from '../communications/communication.decider.ts';
import { readState } from '../shared/facts.ts';
import { vocDecider } from '../vocs/voc.decider.ts';
import { vocsMaybeLinkedTo } from '../vocs/voc-index.ts';
import { toUploadedFile } from './uploaded-file.routes.ts';

/** The owner key under which a communication's attachments are stored. */
const communicationOwner = (communicationId: string) => `communication:${communicationId}`;

/**
 * The tenant's uploaded files among `ids`, each with the communication holding it (null: none):
 * what the decider checks attachments against. Another tenant's file is absent, so it reads as not found.
 */
export async function attachmentFacts(
  storage: FileStorage,
  tenantId: string,
  ids: readonly string[],
): Promise<Map<string, string | null>> {
  const files = await storage.find(tenantId, ids);
  return new Map(
    files.map((f) => [
      f.id,
      f.owner === null ? null : f.owner.startsWith('communication:') ? f.owner.slice('communication:'.length) : f.owner,
    ]),
  );
}

/**
 * After a save: the record's files become its own (the others it had are released, and go a day
 * later), and the answer's attachments. The worker's uploaded-files reactor does the same from the
 * events, so a crash between the append and this call loses no reference.
 */
export async function linkAttachments(
  storage: FileStorage,
  key: Buffer,
  tenantId: string,
  state: CommunicationState,
  revision: number,
): Promise<Communication['attachments']> {
  const fields = state.fields!;
  const owner = communicationOwner(fields.communication_id);
  const ids = state.status === 'active' ? fields.attachment_ids : [];
  await storage.setOwnerFiles(tenantId, owner, ids, revision);
  const files = (await storage.filesOf(tenantId, [owner])).get(owner) ?? [];
  const now = new Date();
  return files.map((f) => toUploadedFile(key, f, now));
}

/** The live VOCs that link the communication, as GET answers them (latest reported first). */
export async function linkedVocs(
  db: Database,
  store: EventStore,
  tenantId: string,
  communicationId: string,
): Promise<Communication['vocs']> {
  const candidates = await vocsMaybeLinkedTo(db, tenantId, communicationId);
  const states = await Promise.all(
    candidates.map((id) => readState(store, tenantId, streamId(vocAggregate, id), vocDecider)),
  );
  return states
    .flatMap(({ state }) =>
      state.status === 'active' && state.fields!.communication_ids.includes(communicationId) ? [state.fields!] : [],
    )
    .sort((a, b) => b.reported_date.localeCompare(a.reported_date) || a.voc_id.localeCompare(b.voc_id))
    .map((v) => ({ id: v.voc_id, title: v.title, status: v.status, priority: v.priority }));
}
