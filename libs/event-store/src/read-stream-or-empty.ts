import { StreamNotFoundError } from './errors.ts';
import type { EventStore, RecordedEvent } from './types.ts';

/**
 * A stream of one tenant, or no events when it does not exist yet (a command's first write, a tenant
 * setting never saved). A stream of another tenant reads as empty too: the caller decides whether
 * that is a 404 (an existing record) or a fresh start (a stream keyed by the tenant itself).
 */
export async function readStreamOrEmpty(
  store: EventStore,
  stream: string,
  tenantId: string,
  types?: readonly string[],
): Promise<RecordedEvent[]> {
  try {
    return await store.readStream(stream, types ? { tenantId, types } : { tenantId });
  } catch (error) {
    if (error instanceof StreamNotFoundError) return [];
    throw error;
  }
}

/** The revision of a stream's last event, -1 for a stream without events (what `no_stream` expects). */
export const lastRevision = (events: readonly RecordedEvent[]): number =>
  events.length > 0 ? events[events.length - 1]!.revision : -1;
