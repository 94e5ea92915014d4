import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '@renkei/db';
import {
  comparePositions,
  createPostgresEventStore,
  newEventMetadata,
  streamId,
  type EventStore,
  type Position,
} from '@renkei/event-store';
import { catchUpProjections } from './projection-runner.ts';
import { streamTotalsProjection } from './testing/stream-totals.projection.ts';

const EVENTS = 30_000;
const STREAMS = 300;
const CHILD = path.join(path.dirname(fileURLToPath(import.meta.url)), 'testing', 'rebuild-child.ts');

describe('projection rebuild under kill -9', () => {
  let db: TestDatabase;
  let store: EventStore;
  const children = new Set<ChildProcess>();

  beforeAll(async () => {
    db = await createTestDatabase();
    store = await createPostgresEventStore(db);
  });
  afterAll(async () => {
    for (const child of children) child.kill('SIGKILL');
    await store?.close();
    await db?.close();
  });

  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  async function buildState() {
    const { rows } = await sql<{ suffix: string; state: string; events_processed: string; p1: string; p2: string }>`
      SELECT suffix, state, events_processed::text, position_primary::text AS p1, position_secondary::text AS p2
        FROM rm.projection_checkpoints WHERE name = 'stream_totals'
    `.execute(db.kysely);
    return rows;
  }

  function startChild(): ChildProcess {
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD], {
      env: { ...process.env, DATABASE_URL: db.url, PROJECTION_VERSION: '2', BATCH_SIZE: '100' },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    children.add(child);
    child.on('exit', () => children.delete(child));
    return child;
  }

  async function killHard(child: ChildProcess): Promise<void> {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }

  it('a rebuild killed at random moments and restarted ends with the rows of a clean rebuild', async () => {
    const tenant = randomUUID();
    const streams = Array.from({ length: STREAMS }, () => streamId('kill', randomUUID()));
    const perAppend = 50;
    let last: Position = { primary: 0n, secondary: 0n };
    let n = 0;
    const appends = Array.from({ length: EVENTS / perAppend }, (_, i) => i);
    const writer = async () => {
      for (let i = appends.shift(); i !== undefined; i = appends.shift()) {
        const events = Array.from({ length: perAppend }, () => ({
          type: 'SampleCounted',
          data: { n: ++n },
          metadata: newEventMetadata(tenant),
        }));
        const r = await store.append(streams[i % STREAMS]!, events, { expectedRevision: 'any' });
        if (comparePositions(r.position, last) > 0) last = r.position;
      }
    };
    await Promise.all(Array.from({ length: 6 }, writer));
    await catchUpProjections({ db, store, projections: [streamTotalsProjection({ version: 1 })], until: last });

    // Rebuild v2 in a child process, killing it mid-rebuild at random moments.
    let kills = 0;
    const plannedKills = 3 + Math.floor(Math.random() * 3);
    let processedBefore = -1;
    while (kills < plannedKills) {
      const child = startChild();
      let rebuilding = true;
      for (;;) {
        const state = await buildState();
        const v2 = state.find((r) => r.suffix === 'v2');
        if (v2?.state === 'live') {
          rebuilding = false;
          break;
        }
        if (v2 && Number(v2.events_processed) > processedBefore) break;
        await sleep(10);
      }
      if (!rebuilding) {
        await killHard(child);
        break;
      }
      await sleep(Math.random() * 250);
      await killHard(child);
      const v2 = (await buildState()).find((r) => r.suffix === 'v2');
      if (v2?.state !== 'rebuilding') break;
      kills += 1;
      processedBefore = Number(v2.events_processed);
    }
    expect(kills).toBeGreaterThanOrEqual(3);

    // Restart and let it finish.
    const child = startChild();
    for (;;) {
      const state = await buildState();
      if (
        state.length === 1 &&
        state[0]!.suffix === 'v2' &&
        state[0]!.state === 'live' &&
        comparePositions({ primary: BigInt(state[0]!.p1), secondary: BigInt(state[0]!.p2) }, last) >= 0
      ) {
        break;
      }
      await sleep(50);
    }
    await killHard(child);

    const clean = streamTotalsProjection({ name: 'clean_totals', table: 'clean_totals', version: 2 });
    await catchUpProjections({ db, store, projections: [clean], until: last });

    const rebuilt = await sql`SELECT * FROM rm.stream_totals ORDER BY stream`.execute(db.kysely);
    const reference = await sql`SELECT * FROM rm.clean_totals ORDER BY stream`.execute(db.kysely);
    expect(reference.rows).toHaveLength(STREAMS);
    expect(rebuilt.rows).toEqual(reference.rows);
    const total = await sql<{ events: string }>`SELECT sum(events)::text AS events FROM rm.stream_totals`.execute(
      db.kysely,
    );
    expect(Number(total.rows[0]!.events)).toBe(EVENTS);
    const tables = await sql<{ table_name: string }>`
      SELECT table_name FROM information_schema.tables
       WHERE table_schema = 'rm' AND table_name LIKE 'stream_totals%' AND table_type = 'BASE TABLE'
    `.execute(db.kysely);
    expect(tables.rows.map((r) => r.table_name)).toEqual(['stream_totals_v2']);
    console.log(`[projections] kill -9 test: ${kills} kills mid-rebuild over ${EVENTS} events`);
  });
});
