import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '@renkei/db';
import {
  createPostgresEventStore,
  newEventMetadata,
  streamId,
  type EventStore,
  type RecordedEvent,
} from '@renkei/event-store';
import { defineReactor, startReactors } from './reactor.ts';

describe('reactors', () => {
  let db: TestDatabase;
  let store: EventStore;
  const tenant = randomUUID();

  beforeAll(async () => {
    db = await createTestDatabase();
    store = await createPostgresEventStore(db);
  });
  afterAll(async () => {
    await store?.close();
    await db?.close();
  });

  const append = (type: string, n: number) =>
    store.append(
      streamId('reacted', randomUUID()),
      [
        {
          type,
          data: { n },
          metadata: newEventMetadata(tenant),
        },
      ],
      { expectedRevision: 'no_stream' },
    );

  async function until(condition: () => boolean, timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!condition()) {
      if (Date.now() > deadline) throw new Error('condition not met in time');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  it('reacts to its event types from the beginning, retries a failed batch, and resumes from its checkpoint', async () => {
    await append('Wanted', 1);
    await append('Ignored', 2);
    await append('Wanted', 3);
    const seen: number[] = [];
    let failOnce = true;
    const reactor = defineReactor({
      name: 'test_reactor',
      eventTypes: ['Wanted'],
      async handle(events: RecordedEvent[]) {
        if (failOnce) {
          failOnce = false;
          throw new Error('transient');
        }
        seen.push(...events.map((e) => (e.data as { n: number }).n));
      },
    });
    const errors: unknown[] = [];
    const logger = { info: () => undefined, warn: () => undefined, error: (o: object) => errors.push(o) };
    const first = startReactors({ db, store, reactors: [reactor], logger, pollIntervalMs: 5 });
    await until(() => seen.length >= 2);
    await first.stop();
    expect(seen).toEqual([1, 3]);
    expect(errors).toHaveLength(1);

    await append('Wanted', 4);
    const second = startReactors({ db, store, reactors: [reactor], logger, pollIntervalMs: 5 });
    await until(() => seen.length >= 3);
    await second.stop();
    expect(seen).toEqual([1, 3, 4]);
  });

  it('a reactor starting at head ignores history', async () => {
    const seen: number[] = [];
    const reactor = defineReactor({
      name: 'head_reactor',
      eventTypes: ['Wanted'],
      startAt: 'head',
      async handle(events) {
        seen.push(...events.map((e) => (e.data as { n: number }).n));
      },
    });
    const running = startReactors({ db, store, reactors: [reactor], pollIntervalMs: 5 });
    try {
      // Let it record its starting checkpoint before appending.
      for (let i = 0; i < 500; i++) {
        const { rows } = await sql`SELECT 1 FROM rm.reactor_checkpoints WHERE name = 'head_reactor'`
          .execute(db.kysely)
          .catch(() => ({ rows: [] }));
        if (rows.length > 0) break;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      await append('Wanted', 5);
      await until(() => seen.length >= 1);
    } finally {
      await running.stop();
    }
    expect(seen).toEqual([5]);
  });
});
