import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '@renkei/db';
import { createPostgresEventStore, newEventMetadata, streamId, type EventStore } from '@renkei/event-store';
import { defineReactor, startReactors } from './reactor.ts';

let db: TestDatabase;
let store: EventStore;

beforeAll(async () => {
  db = await createTestDatabase();
  store = await createPostgresEventStore(db);
});
afterAll(async () => {
  await store?.close();
  await db?.close();
});

const until = async (check: () => boolean | Promise<boolean>, ms = 20_000) => {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
};

describe('startReactors', () => {
  it('parks an event that keeps failing, reports it, and goes on with the other tenants', async () => {
    const poisoned = randomUUID();
    const healthy = randomUUID();
    const handled: string[] = [];
    const parked: string[] = [];
    const reactor = defineReactor({
      name: 'poison_test',
      eventTypes: ['Poked'],
      maxAttempts: 3,
      async handle(events) {
        for (const e of events) {
          if (e.metadata.tenant_id === poisoned) throw new Error('cannot apply');
          handled.push(e.metadata.tenant_id);
        }
      },
      async onParked(event) {
        parked.push(event.metadata.tenant_id);
      },
    });
    const poke = (tenant: string) =>
      store.append(streamId('poke', randomUUID()), [{ type: 'Poked', data: {}, metadata: newEventMetadata(tenant) }], {
        expectedRevision: 'no_stream',
      });
    // The poisoned event comes first and shares a batch with the healthy ones.
    await poke(poisoned);
    await poke(healthy);
    await poke(healthy);
    const running = startReactors({ db, store, reactors: [reactor], pollIntervalMs: 5 });
    try {
      await until(() => handled.length === 2);
      expect(handled).toEqual([healthy, healthy]);
      expect(parked).toEqual([poisoned]);
      const { rows } = await sql<{ tenant_id: string; error: string; event_type: string }>`
        SELECT tenant_id::text, error, event_type FROM rm.reactor_parked_events WHERE reactor = 'poison_test'`.execute(
        db.kysely,
      );
      expect(rows).toEqual([{ tenant_id: poisoned, error: 'Error: cannot apply', event_type: 'Poked' }]);
    } finally {
      await running.stop();
    }
  });

  it("wakes a caught-up reactor at once on its own process's append, however long its idle poll", async () => {
    const handled: number[] = [];
    const reactor = defineReactor({
      name: 'wake_test',
      eventTypes: ['Woken'],
      async handle(events) {
        for (const _ of events) handled.push(Date.now());
      },
    });
    // An hour's idle poll: only the append's wake can bring the event in within the test.
    const running = startReactors({ db, store, reactors: [reactor], idlePollIntervalMs: 3_600_000 });
    try {
      await until(async () => {
        const { rows } = await sql<{ n: number }>`
          SELECT count(*)::int AS n FROM rm.reactor_checkpoints WHERE name = 'wake_test'`.execute(db.kysely);
        return rows[0]!.n === 1;
      });
      // Let the loop reach its idle wait.
      await new Promise((r) => setTimeout(r, 200));
      const appendedAt = Date.now();
      await store.append(
        streamId('wake', randomUUID()),
        [{ type: 'Woken', data: {}, metadata: newEventMetadata(randomUUID()) }],
        { expectedRevision: 'no_stream' },
      );
      await until(() => handled.length === 1, 10_000);
      expect(handled[0]! - appendedAt).toBeLessThan(10_000);
    } finally {
      await running.stop();
    }
  });
});
