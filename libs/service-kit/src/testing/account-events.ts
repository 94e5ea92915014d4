import { randomUUID } from 'node:crypto';
import type { EventStore, Position, RecordedEvent } from '@renkei/event-store';

export interface MemoryAccountEvents {
  /** Only `readAll` and `subscribe` are served: what an app needs to follow account changes. */
  store: EventStore;
  /** Publishes identity's `AccountUpdated` for the account, as a delete (`active: false`) does. */
  accountUpdated(accountId: string, tenantId: string, active: boolean): void;
}

/** Identity's account events in memory, for service tests without an event store. */
export function memoryAccountEvents(): MemoryAccountEvents {
  const events: RecordedEvent[] = [];
  const at = (i: number): Position => ({ primary: BigInt(i), secondary: 0n });
  const readAll: EventStore['readAll'] = async (from, options = {}) => {
    const after = events.filter((e) => e.position.primary > from.primary);
    const page = after.filter((e) => !options.types || options.types.includes(e.type)).slice(0, options.limit ?? 1000);
    return { events: page, next: page.at(-1)?.position ?? at(Math.max(events.length, Number(from.primary))) };
  };
  const store = {
    readAll,
    subscribe(from, handler, options = {}) {
      let position = from;
      const timer = setInterval(() => {
        void readAll(position, { types: options.types }).then(async (page) => {
          if (page.events.length) await handler(page.events, page.next);
          position = page.next;
        });
      }, options.pollIntervalMs ?? 1000);
      return { stop: async () => clearInterval(timer) };
    },
  } as Pick<EventStore, 'readAll' | 'subscribe'> as EventStore;
  return {
    store,
    accountUpdated(accountId, tenantId, active) {
      events.push({
        id: randomUUID(),
        stream: `account-${accountId}`,
        revision: 0,
        position: at(events.length + 1),
        type: 'AccountUpdated',
        data: {
          account_id: accountId,
          tenant_id: tenantId,
          username: 'テスト',
          email: null,
          login_name: 'test',
          role: 'member',
          cs_account: false,
          is_confirmed: true,
          active,
        },
        metadata: {
          tenant_id: tenantId,
          account_id: null,
          correlation_id: randomUUID(),
          causation_id: null,
          schema_version: 1,
        },
        created_at: new Date(),
      });
    },
  };
}
