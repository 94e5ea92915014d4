import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, openDatabase, type Database, type TestDatabase } from '@renkei/db';
import { newEventMetadata } from '../metadata.ts';
import { streamId } from '../stream-id.ts';
import type { EventStore } from '../types.ts';
import { createPostgresEventStore } from './postgres-event-store.ts';

/** `next()` resolves at the store's next `onAppend` call; the test's timeout bounds the wait. */
function heard(store: EventStore) {
  const waiters: (() => void)[] = [];
  const unregister = store.onAppend!(() => {
    for (const w of waiters.splice(0)) w();
  });
  return { next: () => new Promise<void>((resolve) => waiters.push(resolve)), unregister };
}

/** The listening connections on the test's database. */
const listenerConnections = `FROM pg_stat_activity
  WHERE application_name = 'renkei-append-listener' AND datname = current_database()`;

describe('appends of other processes', () => {
  let db: TestDatabase;
  // Another process: its own pool and store on the same database.
  let otherDb: Database;
  let writer: EventStore;
  let follower: EventStore;
  beforeAll(async () => {
    db = await createTestDatabase();
    otherDb = await openDatabase({ url: db.url, poolMax: 2 });
    writer = await createPostgresEventStore(db);
    follower = await createPostgresEventStore(otherDb);
  });
  afterAll(async () => {
    await follower.close();
    await writer.close();
    await otherDb.close();
    await db.close();
  });

  const append = (store: EventStore) =>
    store.append(
      streamId('note', randomUUID()),
      [{ type: 'NoteWritten', data: {}, metadata: newEventMetadata(randomUUID()) }],
      { expectedRevision: 'no_stream' },
    );

  it('wake a follower of this process at their commit, through its LISTEN connection', async () => {
    expect(follower.hearsOtherProcesses).toBe(true);
    const listen = heard(follower);
    // The connection reports itself once it listens (for what came before it did).
    await listen.next();
    const woken = listen.next();
    await append(writer);
    await woken;
    // One notification per appending transaction: a second append is a second call.
    const again = listen.next();
    await append(writer);
    await again;
    listen.unregister();
  });

  it('reach it again after its connection was lost', async () => {
    const listen = heard(follower);
    const back = listen.next();
    await db.pool.query(`SELECT pg_terminate_backend(pid) ${listenerConnections}`);
    // Called once it listens again, then for appends as before.
    await back;
    const woken = listen.next();
    await append(writer);
    await woken;
    listen.unregister();
  });

  it('are not listened for when turned off, and a store that has nobody following opens no connection', async () => {
    const quiet = await createPostgresEventStore(otherDb, { listen: false });
    expect(quiet.hearsOtherProcesses).toBe(false);
    await quiet.close();
    const listeners = async () =>
      (await db.pool.query<{ n: number }>(`SELECT count(*)::int AS n ${listenerConnections}`)).rows[0]!.n;
    const before = await listeners();
    const unfollowed = await createPostgresEventStore(otherDb);
    await append(unfollowed);
    // At most as many: a connection terminated by the test before may still be leaving.
    expect(await listeners()).toBeLessThanOrEqual(before);
    await unfollowed.close();
  });
});
