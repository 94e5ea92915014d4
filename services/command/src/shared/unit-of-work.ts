import type { Database, StatementConfig } from '@renkei/db';
import type { AppendResult, EventStore, ExpectedRevision, NewEvent } from '@renkei/event-store';

export interface UnitOfWork {
  query<R = Record<string, unknown>>(config: StatementConfig): Promise<{ rows: R[] }>;
  append(stream: string, events: NewEvent[], options: { expectedRevision: ExpectedRevision }): Promise<AppendResult>;
  /** Undoes a command-side write (a name reservation) when a later step of the unit fails. */
  compensate(undo: () => Promise<void>): void;
}

/**
 * Runs a command's own writes and its appends in sequence, undoing the earlier writes when a later
 * one fails. Not one database transaction, deliberately: the event store may be EventStoreDB, and
 * on Postgres a transaction measured slower here (BEGIN and COMMIT are two more round trips, and the
 * Node process, not the commit, is the limit: 1,190 vs 1,470 tag creates/s). A crash between the
 * steps leaves at most a reservation, which its owner's absence frees (see the tag routes).
 */
export async function runUnitOfWork<T>(
  db: Database,
  store: EventStore,
  work: (uow: UnitOfWork) => Promise<T>,
): Promise<T> {
  const undo: (() => Promise<void>)[] = [];
  try {
    return await work({
      query: async <R>(config: StatementConfig) => (await db.pool.query(config)) as unknown as { rows: R[] },
      append: (...args) => store.append(...args),
      compensate: (u) => undo.push(u),
    });
  } catch (error) {
    for (const u of undo.reverse()) await u().catch(() => undefined);
    throw error;
  }
}
