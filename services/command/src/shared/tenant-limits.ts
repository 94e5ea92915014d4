import { TenantLimits } from '@renkei/domain';
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
export function foldTenantLimits(events: readonly RecordedEvent[]): TenantLimits | null {
  let limits: TenantLimits | null = null;
  for (const e of events) {
    if ((tenantEventTypes as readonly string[]).includes(e.type)) {
      const parsed = TenantLimits.safeParse((e.data as { limits?: unknown }).limits);
      if (parsed.success) limits = parsed.data;
    }
  }
  return limits;
}

/**
 * Tenant limits for every command without a read of the tenant stream per request (that read was
 * a third of a tag create's round trips). A miss folds the stream, so the first answer is exact; a
 * follower of tenant events started at the head drops an entry whenever its tenant changes, so a new
 * limit holds from the next command once the follower has seen it (one poll interval, 200 ms by default).
 */
export async function createTenantLimitsCache(
  store: EventStore,
  options: TenantLimitsCacheOptions = {},
): Promise<TenantLimitsCache> {
  const maxEntries = options.maxEntries ?? 10_000;
  const entries = new Map<string, Promise<TenantLimits | null>>();
  // Bumped by the follower, so a load that raced with a change never caches what it read before it.
  const generations = new Map<string, number>();

  // Any event not yet visible at this head is after it, so the follower cannot miss a change to an
  // entry loaded from now on.
  const head = await store.headPosition();
  const follower: Subscription = store.subscribe(
    head,
    async (events) => {
      for (const e of events) {
        const tenantId = e.metadata.tenant_id.toLowerCase();
        generations.set(tenantId, (generations.get(tenantId) ?? 0) + 1);
        entries.delete(tenantId);
      }
    },
    {
      types: tenantEventTypes,
      pollIntervalMs: options.pollIntervalMs ?? 200,
      wakeOnLocalAppend: false,
      onError: options.onError,
    },
  );

  async function load(tenantId: string): Promise<TenantLimits | null> {
    try {
      return foldTenantLimits(await store.readStream(streamId('tenant', tenantId), { tenantId }));
    } catch (error) {
      // A tenant the identity service never published has no limits to enforce.
      if (error instanceof StreamNotFoundError) return null;
      throw error;
    }
  }

  return {
    get(tenantIdInput) {
      const tenantId = tenantIdInput.toLowerCase();
      const cached = entries.get(tenantId);
      if (cached) return cached;
      const generation = generations.get(tenantId) ?? 0;
      const loading = load(tenantId);
      entries.set(tenantId, loading);
      loading.then(
        () => {
          if ((generations.get(tenantId) ?? 0) !== generation && entries.get(tenantId) === loading) {
            entries.delete(tenantId);
          }
        },
        () => {
          if (entries.get(tenantId) === loading) entries.delete(tenantId);
        },
      );
      if (entries.size > maxEntries) entries.delete(entries.keys().next().value!);
      return loading;
    },
    async close() {
      await follower.stop();
    },
  };
}
