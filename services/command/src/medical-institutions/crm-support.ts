import { sql } from 'kysely';
import { HttpError, type UserRef } from '@renkei/contracts';
import type { Database } from '@renkei/db';
import {
  StreamNotFoundError,
  WrongExpectedRevisionError,
  streamId,
  type AppendResult,
  type EventStore,
  type NewEvent,
  type RecordedEvent,
} from '@renkei/event-store';
import type { AuthContext } from '@renkei/service-kit';
import { medicalInstitutionCrmKey } from '@renkei/domain';
import { eventMetadata } from '../shared/command-context.ts';

/** Key of a tenant's streams about one institution: no two tenants ever share a stream. */
export const crmStreamKey = medicalInstitutionCrmKey;

/** A stream of this tenant, or no events when it does not exist yet. */
export async function readOwnStream(store: EventStore, aggregate: string, id: string, tenantId: string) {
  try {
    const events = await store.readStream(streamId(aggregate, id), { tenantId });
    return { events, revision: events.length > 0 ? events[events.length - 1]!.revision : -1 };
  } catch (error) {
    if (error instanceof StreamNotFoundError) return { events: [] as RecordedEvent[], revision: -1 };
    throw error;
  }
}

export const expectedFrom = (revision: number) => (revision < 0 ? ('no_stream' as const) : revision);

/**
 * Appends what a command decided on a stream read at `revision` (as `readOwnStream` returns it),
 * every event carrying the caller and request as metadata; a writer in between makes it fail.
 */
export function appendDecided(
  store: EventStore,
  stream: { aggregate: string; id: string; revision: number },
  decided: Omit<NewEvent, 'metadata'>[],
  auth: AuthContext,
  correlationId: string,
): Promise<AppendResult> {
  return store.append(
    streamId(stream.aggregate, stream.id),
    decided.map((e) => ({ ...e, metadata: eventMetadata(auth, correlationId) })),
    { expectedRevision: expectedFrom(stream.revision) },
  );
}

/** The institution must be in the shared master; unknown ids answer 404 like any missing record. */
export async function assertInstitutionExists(db: Database, id: string): Promise<{ id: string; name: string }> {
  const { rows } = await sql<{ id: string; name: string }>`
    SELECT id, name FROM ref.medical_institutions WHERE id = ${id}`.execute(db.kysely);
  if (!rows[0]) throw new HttpError(404);
  return rows[0];
}

/** The caller as shown next to their change (name from the identity service's account events). */
export async function callerRef(store: EventStore, auth: AuthContext): Promise<UserRef> {
  const { events } = await readOwnStream(store, 'account', auth.accountId, auth.tenantId);
  let name = '';
  for (const e of events) {
    const data = e.data as { username?: string };
    if ((e.type === 'AccountRegistered' || e.type === 'AccountUpdated') && data.username) name = data.username;
  }
  return { id: auth.accountId, name };
}

/** The tenant's `enabled_phase` flag, from the identity service's tenant events. */
export async function phaseEnabled(store: EventStore, tenantId: string): Promise<boolean> {
  const { events } = await readOwnStream(store, 'tenant', tenantId, tenantId);
  let enabled = false;
  for (const e of events) {
    const data = e.data as { enabled_phase?: boolean };
    if ((e.type === 'TenantRegistered' || e.type === 'TenantSettingsChanged') && data.enabled_phase !== undefined)
      enabled = Boolean(data.enabled_phase);
  }
  return enabled;
}

/**
 * Runs a read-decide-append step, retrying once when another writer got in between: commands that
 * replace a whole value (tags, phase) re-decide on the fresh state instead of failing the user.
 */
export async function withRetry<T>(step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    if (!(error instanceof WrongExpectedRevisionError)) throw error;
    return step();
  }
}
