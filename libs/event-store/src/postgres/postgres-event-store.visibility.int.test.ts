import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '@renkei/db';
import { newEventMetadata } from '../metadata.ts';
import { streamId } from '../stream-id.ts';
import type { EventStore } from '../types.ts';
import { createPostgresEventStore } from './postgres-event-store.ts';

const APPENDS = 40;
const APPEND_EVERY_MS = 50;
// What is asserted is behaviour, not speed: every append reaches the follower while the other
// transaction is still open (before the fix, none did until it ended). The lag is printed as a figure
// and measured in `pnpm bench`; a loaded CI machine must not turn a slow second into a failure.
const HOLD_DEADLINE_MS = 30_000;

/**
 * A follower polling like another process (no local wake-up), measuring for each append the time
 * from its answer until the follower had it, while `hold` keeps a transaction with an xid open.
 */
async function lagWhileHeld(store: EventStore, hold: pg.Client): Promise<{ delivered: number; lags: number[] }> {
  await hold.query('BEGIN');
  await hold.query('SELECT pg_current_xact_id()');
  const appendedAt = new Map<string, number>();
  // By id: a follower may have an event before its append's answer reached us (lag 0 then).
  const deliveredAt = new Map<string, number>();
  const lagsSoFar = () =>
    [...appendedAt].flatMap(([id, at]) => {
      const got = deliveredAt.get(id);
      return got === undefined ? [] : [Math.max(0, got - at)];
    });
  const subscription = store.subscribe(
    await store.headPosition(),
    async (events) => {
      const now = performance.now();
      for (const e of events) deliveredAt.set(e.id, now);
    },
    { wakeOnLocalAppend: false },
  );
  try {
    const tenant = randomUUID();
    const stream = streamId('visibility', randomUUID());
    for (let i = 0; i < APPENDS; i++) {
      const id = randomUUID();
      await store.append(stream, [{ id, type: 'Ticked', data: { i }, metadata: newEventMetadata(tenant) }], {
        expectedRevision: i === 0 ? 'no_stream' : i - 1,
      });
      appendedAt.set(id, performance.now());
      await new Promise((resolve) => setTimeout(resolve, APPEND_EVERY_MS));
    }
    // Still holding: whatever has not arrived by now waited on the other transaction.
    const deadline = performance.now() + HOLD_DEADLINE_MS;
    while (lagsSoFar().length < APPENDS && performance.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const lags = lagsSoFar().sort((a, b) => a - b);
    return { delivered: lags.length, lags };
  } finally {
    await hold.query('ROLLBACK');
    await subscription.stop();
  }
}

describe('Postgres event store: readers do not wait for unrelated transactions', () => {
  let db: TestDatabase;
  let other: TestDatabase;
  let store: EventStore;

  beforeAll(async () => {
    [db, other] = await Promise.all([createTestDatabase(), createTestDatabase()]);
    store = await createPostgresEventStore(db);
  });
  afterAll(async () => {
    await store?.close();
    await db?.close();
    await other?.close();
  });

  it.each([
    ['in another database on the same server', () => other.url],
    ['in the same database, writing elsewhere (a rebuild, an import)', () => db.url],
  ])('a long-lived transaction %s: every append reaches a follower while it is still open', async (_label, url) => {
    const hold = new pg.Client({ connectionString: url() });
    await hold.connect();
    try {
      await hold.query('CREATE TABLE IF NOT EXISTS public.busy (n int)');
      const { delivered, lags } = await lagWhileHeld(store, hold);
      console.log(
        `[event-store] follower lag beside a long transaction ${_label}: ` +
          `${delivered}/${APPENDS} delivered, p50 ${lags[Math.floor(lags.length / 2)]?.toFixed(0)} ms, ` +
          `max ${lags[lags.length - 1]?.toFixed(0)} ms`,
      );
      expect(delivered).toBe(APPENDS);
    } finally {
      await hold.end();
    }
  });
});
