import { parseAccountEvent } from '@renkei/domain';
import { startPosition, type EventStore, type Position, type Subscription } from '@renkei/event-store';

/** Accounts whose signed, unexpired tokens must no longer be accepted (deleted or deactivated). */
export interface AccountRevocations {
  isRevoked(accountId: string): boolean;
  close(): Promise<void>;
}

export interface AccountRevocationOptions {
  /** How often the follower looks for account changes written by the identity service. */
  pollIntervalMs?: number;
  onError?: (error: unknown) => void;
}

const accountEventTypes = ['AccountUpdated'] as const;
const pageSize = 1000;

/**
 * An in-memory set of the accounts identity has deactivated (a delete sets `active: false`), kept by
 * following identity's `AccountUpdated` events, so every service refuses such an account's tokens
 * within one poll interval (1 s by default) without asking identity on each request. Resolves once the
 * whole history has been read: a service never serves with a set that misses an older deletion.
 *
 * Only these rare events are read (the store filters by type), and the follower ignores this
 * process's own appends, so it costs one small query per interval whatever the command load.
 */
export async function followAccountRevocations(
  store: EventStore,
  options: AccountRevocationOptions = {},
): Promise<AccountRevocations> {
  const revoked = new Set<string>();
  const apply = (events: Parameters<typeof parseAccountEvent>[0][]) => {
    for (const raw of events) {
      const event = parseAccountEvent(raw);
      if (event.type !== 'AccountUpdated') continue;
      const id = event.data.account_id.toLowerCase();
      if (event.data.active) revoked.delete(id);
      else revoked.add(id);
    }
  };

  let from: Position = startPosition;
  for (;;) {
    const page = await store.readAll(from, { limit: pageSize, types: accountEventTypes });
    apply(page.events);
    from = page.next;
    if (page.events.length < pageSize) break;
  }

  const follower: Subscription = store.subscribe(
    from,
    async (events) => {
      apply(events);
    },
    {
      types: accountEventTypes,
      pollIntervalMs: options.pollIntervalMs ?? 1000,
      wakeOnLocalAppend: false,
      onError: options.onError,
    },
  );

  return {
    isRevoked: (accountId) => revoked.has(accountId.toLowerCase()),
    close: () => follower.stop(),
  };
}
