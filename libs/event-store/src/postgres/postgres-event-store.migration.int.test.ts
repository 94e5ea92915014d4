import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, migrateModule, type TestDatabase } from '@renkei/db';
import { newEventMetadata } from '../metadata.ts';
import { comparePositions, startPosition } from '../position.ts';
import type { Position } from '../types.ts';
import { eventStoreMigrations } from './postgres-event-store.migrations.ts';
import { createPostgresEventStore } from './postgres-event-store.ts';

const tenant = randomUUID();

async function insertOld(client: pg.Client | pg.Pool, stream: string, revision: number): Promise<Position> {
  const { rows } = await client.query<{ t: string; g: string }>(
    `INSERT INTO es.events (stream_id, revision, event_id, type, data, metadata, tenant_id)
     VALUES ($1, $2, $3, 'Old', '{}', $4::jsonb, $5)
     RETURNING transaction_id::text AS t, global_position::text AS g`,
    [stream, revision, randomUUID(), JSON.stringify(newEventMetadata(tenant)), tenant],
  );
  return { primary: BigInt(rows[0]!.t), secondary: BigInt(rows[0]!.g) };
}

describe('Postgres event store: migration 0005 on a store with data', () => {
  let db: TestDatabase;

  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(async () => {
    await db?.close();
  });

  it('keeps every stored row, in its order, before every later one; positions handed out before still compare', async () => {
    const released = Object.fromEntries(Object.entries(eventStoreMigrations).filter(([name]) => name < '0005'));
    await migrateModule(db.kysely, 'event_store', released);
    // Stored by the old schema, each row in its own transaction (its xid as the position's first half).
    const old: Position[] = [];
    for (let i = 0; i < 12; i++) old.push(await insertOld(db.pool, 'old-a', i));
    // An append still in flight when the migration starts: it must wait for it and stay below it.
    const inFlight = new pg.Client({ connectionString: db.url });
    await inFlight.connect();
    await inFlight.query('BEGIN');
    const lateOld = await insertOld(inFlight, 'old-b', 0);
    const migrating = createPostgresEventStore(db);
    await new Promise((resolve) => setTimeout(resolve, 300));
    await inFlight.query('COMMIT');
    await inFlight.end();
    const store = await migrating;
    try {
      const fresh: Position[] = [];
      for (let i = 0; i < 3; i++) {
        const r = await store.append('new-a', [{ type: 'New', data: { i }, metadata: newEventMetadata(tenant) }], {
          expectedRevision: i === 0 ? 'no_stream' : i - 1,
        });
        fresh.push(r.position);
      }
      const oldAll = [...old, lateOld];
      for (const f of fresh) {
        for (const o of oldAll) expect(comparePositions(o, f)).toBe(-1);
      }

      const all = await store.readAll(startPosition, { limit: 100 });
      expect(all.events.map((e) => e.type)).toEqual([...oldAll.map(() => 'Old'), 'New', 'New', 'New']);
      expect(all.events.map((e) => e.position)).toEqual([...oldAll, ...fresh]);
      expect(comparePositions(all.next, fresh[2]!)).toBe(0);
      expect(comparePositions(await store.headPosition(), fresh[2]!)).toBe(0);

      // A checkpoint of the old kind (a projection's, an X-Min-Position) resumes where it was.
      const resumed = await store.readAll(old[9]!, { limit: 100 });
      expect(resumed.events.map((e) => e.position)).toEqual([old[10], old[11], lateOld, ...fresh]);
      expect(await store.countAfter?.(old[9]!)).toBe(6);
    } finally {
      await store.close();
    }
  });
});
