import { parseTenantEvent, type TenantLimits } from '@renkei/domain';
import {
  StreamNotFoundError,
  streamId,
  type EventStore,
  type RecordedEvent,
  type Subscription,
} from '@renkei/event-store';

const tenantEventTypes = ['TenantRegistered', 'TenantSettingsChanged'] as const;

export interface TenantLimitsCache {
  /** The tenant's limits as its stream says; null when identity never published the tenant. */
  get(tenantId: string): Promise<TenantLimits | null>;
  close(): Promise<void>;
}

export interface TenantLimitsCacheOptions {
  /** How often the follower looks for tenant settings written by the identity service. */
  pollIntervalMs?: number;
  maxEntries?: number;
  onError?: (error: unknown) => void;
}

/** Folds a tenant stream to its current limits (the last registration or settings change wins). */
function foldTenantLimits(events: readonly RecordedEvent[]): TenantLimits | null {
  return events.map(parseTenantEvent).at(-1)?.data.limits ?? null;
}

/**
 * Tenant limits for every command without a read of the tenant stream per request (that read was
 * a third of a tag create's round trips). A miss folds the stream, so the first answer is exact; a
 * follower of tenant events started at the head drops an entry when its tenant's stream moves past
 * the revision the entry was read at, so a new limit holds from the next command once the follower
 * has seen it (one poll interval, 200 ms by default), and an event the entry already holds costs no re-read.
 */
export async function createTenantLimitsCache(
  store: EventStore,
  options: TenantLimitsCacheOptions = {},
): Promise<TenantLimitsCache> {
  const maxEntries = options.maxEntries ?? 10_000;
  const entries = new Map<string, Promise<TenantLimits | null>>();
  // Tenant-stream revision each settled entry was read at (-1: no stream yet).
  const readAt = new Map<string, number>();
  // The newest tenant-stream revision the follower has delivered, so a load that raced with a change
  // never caches what it read before it.
  const seen = new Map<string, number>();
  const drop = (tenantId: string) => {
    entries.delete(tenantId);
    readAt.delete(tenantId);
  };

  // Any event not yet visible at this head is after it, so the follower cannot miss a change to an
  // entry loaded from now on.
  const head = await store.headPosition();
  const follower: Subscription = store.subscribe(
    head,
    async (events) => {
      for (const e of events) {
        const tenantId = e.metadata.tenant_id.toLowerCase();
        seen.set(tenantId, Math.max(seen.get(tenantId) ?? -1, e.revision));
        // A settled entry read before this event goes. A load still in flight is left alone: when it
        // settles it compares its revision with `seen`, so it is kept only if it read this event too
        // (dropping it here made a load that had read the event read it again, when the follower
        // happened to deliver the event while the load was under way).
        const at = readAt.get(tenantId);
        if (at !== undefined && at < e.revision) drop(tenantId);
      }
    },
    {
      types: tenantEventTypes,
      pollIntervalMs: options.pollIntervalMs ?? 200,
      wakeOnLocalAppend: false,
      onError: options.onError,
    },
  );

  async function load(tenantId: string): Promise<{ limits: TenantLimits | null; revision: number }> {
    try {
      const events = await store.readStream(streamId('tenant', tenantId), { tenantId });
      return { limits: foldTenantLimits(events), revision: events[events.length - 1]!.revision };
    } catch (error) {
      // A tenant the identity service never published has no limits to enforce.
      if (error instanceof StreamNotFoundError) return { limits: null, revision: -1 };
      throw error;
    }
  }

  return {
    get(tenantIdInput) {
      const tenantId = tenantIdInput.toLowerCase();
      const cached = entries.get(tenantId);
      if (cached) return cached;
      const loading: Promise<TenantLimits | null> = load(tenantId).then(
        ({ limits, revision }) => {
          if (entries.get(tenantId) === loading) {
            if (revision < (seen.get(tenantId) ?? -1)) drop(tenantId);
            else readAt.set(tenantId, revision);
          }
          return limits;
        },
        (error: unknown) => {
          if (entries.get(tenantId) === loading) drop(tenantId);
          throw error;
        },
      );
      entries.set(tenantId, loading);
      if (entries.size > maxEntries) drop(entries.keys().next().value!);
      return loading;
    },
    async close() {
      await follower.stop();
    },
  };
}
