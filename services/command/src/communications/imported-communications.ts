import { sql } from 'kysely';
import type { Database } from '@renkei/db';
import {
  ImportedCommunication,
  communicationAggregate,
  communicationImportRowsAggregate,
  parseCommunicationEvent,
} from '@renkei/domain';
import { readStreamOrEmpty, streamId, type EventStore, type RecordedEvent } from '@renkei/event-store';
import { fold } from '../shared/decider.ts';
import { deterministicId } from '../shared/deterministic-id.ts';
import { communicationDecider, type CommunicationEvent, type CommunicationState } from './communication.decider.ts';

/**
 * An imported record not written since its import has no stream: it lives in its chunk's
 * `CommunicationsImported` (stream `communication_import_rows-<rows id>`), which
 * `cmd.imported_communications` names (the worker writes that row before it appends the chunk, so a
 * row whose chunk never got stored names a stream without the record: not found). The answer is the
 * stream's beginning, `CommunicationImportAdopted`, for `handleCommand`'s `adopt`; its id is derived
 * from the record, so every first write proposes the same event and only one of them appends it.
 */
export async function importedBeginning(
  db: Database,
  store: EventStore,
  tenantId: string,
  communicationId: string,
): Promise<{ events: CommunicationEvent[]; eventId: (index: number) => string } | null> {
  const { rows } = await sql<{ rows_id: string }>`
    SELECT rows_id FROM cmd.imported_communications
     WHERE tenant_id = ${tenantId} AND communication_id = ${communicationId}`.execute(db.kysely);
  if (!rows[0]) return null;
  const [chunk] = await readStreamOrEmpty(store, streamId(communicationImportRowsAggregate, rows[0].rows_id), tenantId);
  if (!chunk || chunk.type !== 'CommunicationsImported') return null;
  const data = chunk.data as { import_id: string; records: { communication_id: string }[] };
  // Only the record's own entry goes through its schema, not the whole chunk's.
  const record = data.records.find((r) => r.communication_id === communicationId);
  if (!record) return null;
  const adopted = parseCommunicationEvent({
    type: 'CommunicationImportAdopted',
    data: {
      ...ImportedCommunication.parse(record),
      import_id: data.import_id,
      imported_at: chunk.created_at.toISOString(),
    },
  });
  return { events: [adopted], eventId: () => deterministicId(communicationId, 'import-adopted') };
}

/**
 * A communication's state for a check by another feature (a task or VOC naming it): its stream, or
 * for an imported record never written since, its imported beginning (nothing is appended).
 */
export async function readCommunication(
  db: Database,
  store: EventStore,
  tenantId: string,
  communicationId: string,
): Promise<{ state: CommunicationState; events: RecordedEvent[] }> {
  const events = await readStreamOrEmpty(store, streamId(communicationAggregate, communicationId), tenantId);
  const beginning = events.length === 0 ? await importedBeginning(db, store, tenantId, communicationId) : null;
  const parsed = beginning ? beginning.events : events.map((e) => communicationDecider.parse(e));
  return { state: fold(communicationDecider, parsed), events };
}
