import type { Database, StatementConfig } from '@renkei/db';
import type { AppendResult, EventStore, ExpectedRevision, NewEvent } from '@renkei/event-store';

export interface UnitOfWork {
  query<R = Record<string, unknown>>(config: StatementConfig): Promise<{ rows: R[] }>;
  append(stream: string, events: NewEvent[], options: { expectedRevision: ExpectedRevision }): Promise<AppendResult>;
  /**
   * Undoes a command-side write when the unit fails where no transaction can (EventStoreDB: the
   * name reservation commits before the append). Inside a Postgres transaction the rollback does it.
   */
  compensate(undo: () => Promise<void>): void;
}

/**
 * Runs a command's own writes and its appends together: in one transaction when the event store
 * lives in the command's database (one commit per command), otherwise in sequence with compensation.
 * `work` must use only the unit (never the pool: on the embedded database a second connection would
 * wait for this transaction), and may run more than once when a concurrent writer wins a unique key.
 */
export async function runUnitOfWork<T>(
  db: Database,
  store: EventStore,
  work: (uow: UnitOfWork) => Promise<T>,
): Promise<T> {
  if (store.withTransaction) {
    return store.withTransaction((tx) =>
      work({ query: (config) => tx.query(config), append: (...args) => tx.append(...args), compensate: () => {} }),
    );
  }
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
