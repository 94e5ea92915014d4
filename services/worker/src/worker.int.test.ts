import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '@renkei/db';
import { createEventStore, streamId, type EventStore } from '@renkei/event-store';
import { defineProjection, defineReactor, waitForPosition } from '@renkei/projections';
import { startWorker } from './index.ts';

describe('worker', () => {
  let db: TestDatabase;
  let store: EventStore;

  beforeAll(async () => {
    db = await createTestDatabase();
    store = await createEventStore({ db });
  });
  afterAll(async () => {
    await store?.close();
    await db?.close();
  });

  it('runs the projections and reactors it is given until stopped', async () => {
    const names = defineProjection({
      name: 'worker_names',
      version: 1,
      eventTypes: ['NameGiven'],
      tables: ['worker_names'],
      async setup(trx, t) {
        await sql`CREATE TABLE ${sql.table(t.worker_names)} (stream text PRIMARY KEY, name text NOT NULL)`.execute(trx);
      },
      async handle(trx, events, t) {
        const last = new Map(events.map((e) => [e.stream, (e.data as { name: string }).name]));
        await sql`
          INSERT INTO ${sql.table(t.worker_names)} (stream, name)
          SELECT * FROM unnest(${sql.val([...last.keys()])}::text[], ${sql.val([...last.values()])}::text[])
          ON CONFLICT (stream) DO UPDATE SET name = excluded.name
        `.execute(trx);
      },
    });
    const reacted: string[] = [];
    const greeter = defineReactor({
      name: 'worker_greeter',
      eventTypes: ['NameGiven'],
      async handle(events) {
        reacted.push(...events.map((e) => (e.data as { name: string }).name));
      },
    });
    const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };
    const worker = await startWorker({ db, store, projections: [names], reactors: [greeter], logger: silent });
    const stream = streamId('person', randomUUID());
    try {
      const { position } = await store.append(
        stream,
        [
          {
            type: 'NameGiven',
            data: { name: '佐藤' },
            metadata: {
              tenant_id: randomUUID(),
              account_id: null,
              correlation_id: randomUUID(),
              causation_id: null,
              schema_version: 1,
            },
          },
        ],
        { expectedRevision: 'no_stream' },
      );
      expect(await waitForPosition(db, ['worker_names'], position, 30_000)).toBe(true);
      const { rows } = await sql<{ name: string }>`SELECT name FROM rm.worker_names WHERE stream = ${stream}`.execute(
        db.kysely,
      );
      expect(rows).toEqual([{ name: '佐藤' }]);
      const deadline = Date.now() + 30_000;
      while (reacted.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      expect(reacted).toEqual(['佐藤']);
    } finally {
      await worker.stop();
    }
  });
});
