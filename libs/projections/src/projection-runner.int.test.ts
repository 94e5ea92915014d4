import { randomUUID } from 'node:crypto';
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
import { createProjectionEngine } from './projection-engine.ts';
import { defineProjection } from './projection.ts';
import { catchUpProjections, startProjections } from './projection-runner.ts';
import { projectionStatus, requestRebuild, waitForPosition } from './projection-status.ts';
import { streamTotalsProjection } from './testing/stream-totals.projection.ts';

describe('projections runner', () => {
  let db: TestDatabase;
  let store: EventStore;
  const tenant = randomUUID();
  const streams = Array.from({ length: 5 }, () => streamId('sample', randomUUID()));
  let appendedCount = 0;

  async function appendSample(count: number, type = 'SampleCounted'): Promise<Position> {
    let last: Position = { primary: 0n, secondary: 0n };
    for (let i = 0; i < count; i++) {
      const stream = streams[appendedCount % streams.length]!;
      appendedCount += 1;
      const result = await store.append(
        stream,
        [
          {
            type,
            data: { n: appendedCount },
            metadata: newEventMetadata(tenant),
          },
        ],
        { expectedRevision: 'any' },
      );
      last = result.position;
    }
    return last;
  }

  /** Appended events become visible once every older transaction (in any database) has ended. */
  async function waitVisible(position: Position): Promise<void> {
    while (comparePositions(await store.headPosition(), position) < 0) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  async function rows(table = 'rm.stream_totals') {
    const { rows } = await sql<{ stream: string; events: number; total: string; ids: string }>`
      SELECT stream, events, total::text, ids FROM ${sql.table(table)} ORDER BY stream
    `.execute(db.kysely);
    return rows;
  }

  async function physical(): Promise<string[]> {
    const { rows } = await sql<{ table_name: string }>`
      SELECT table_name FROM information_schema.tables
       WHERE table_schema = 'rm' AND table_name LIKE 'stream_totals%' AND table_type = 'BASE TABLE'
       ORDER BY table_name
    `.execute(db.kysely);
    return rows.map((r) => r.table_name);
  }

  beforeAll(async () => {
    db = await createTestDatabase();
    store = await createPostgresEventStore(db);
  });
  afterAll(async () => {
    await store?.close();
    await db?.close();
  });

  it('projects events into rows through the view, in one batched statement per batch', async () => {
    await appendSample(23);
    const until = await appendSample(3, 'SomethingElse');
    await catchUpProjections({ db, store, projections: [streamTotalsProjection()], batchSize: 7, until });
    const result = await rows();
    expect(result).toHaveLength(5);
    expect(result.reduce((a, r) => a + r.events, 0)).toBe(23);
    expect(result.reduce((a, r) => a + Number(r.total), 0)).toBe((23 * 24) / 2);
    expect(await physical()).toEqual(['stream_totals_v1']);
    const status = await projectionStatus(db, store);
    expect(status).toMatchObject([{ name: 'stream_totals', version: 1, state: 'live', events_processed: 23 }]);
    expect(status[0]!.lag_events).toBe(0);
  });

  it('follows new events while running, and waitForPosition reports when they are projected', async () => {
    const runner = startProjections({ db, store, projections: [streamTotalsProjection()] });
    try {
      const position = await appendSample(4);
      expect(await waitForPosition(db, ['stream_totals'], position, 10_000)).toBe(true);
      expect((await rows()).reduce((a, r) => a + r.events, 0)).toBe(27);
      const future = { primary: position.primary + 1_000_000n, secondary: 0n };
      expect(await waitForPosition(db, ['stream_totals'], future, 100)).toBe(false);
      expect(await waitForPosition(db, ['stream_totals', 'no_such_projection'], position, 50)).toBe(false);
      // A stopping worker is not held by a long wait: the abort ends it at once.
      const stopping = new AbortController();
      const started = Date.now();
      const waiting = waitForPosition(db, ['stream_totals'], future, 60_000, stopping.signal);
      setTimeout(() => stopping.abort(), 50);
      expect(await waiting).toBe(false);
      expect(Date.now() - started).toBeLessThan(30_000);
    } finally {
      await runner.stop();
    }
  });

  it('reports lag while behind', async () => {
    const until = await appendSample(6);
    await waitVisible(until);
    const [status] = await projectionStatus(db, store);
    expect(status!.lag_events).toBe(6);
    expect(status!.lag_ms).toBeGreaterThanOrEqual(0);
    await catchUpProjections({ db, store, projections: [streamTotalsProjection()], until });
    expect((await projectionStatus(db, store))[0]!.lag_events).toBe(0);
  });

  it('rebuilds a bumped version beside the live one, then switches the view and drops the old tables', async () => {
    const before = await rows();
    const v2 = streamTotalsProjection({ version: 2 });
    const engine = createProjectionEngine({ db, store, batchSize: 5 });
    expect(await engine.step(v2)).toBe(true); // creates the v2 tables and its checkpoint
    expect(await engine.step(v2)).toBe(true); // one batch into v2
    expect(await physical()).toEqual(['stream_totals_v1', 'stream_totals_v2']);
    // The old version still serves, complete, while v2 is partial.
    expect(await rows()).toEqual(before);
    expect((await rows('rm.stream_totals_v2')).reduce((a, r) => a + r.events, 0)).toBe(5);
    const states = (await projectionStatus(db, store)).map((s) => [s.version, s.state]);
    expect(states.sort()).toEqual([
      [1, 'live'],
      [2, 'rebuilding'],
    ]);
    // During a rolling deploy the old worker keeps the live v1 following new events, so a read
    // waiting for a fresh position is answered before v2 is built.
    const fresh = await appendSample(2);
    await waitVisible(fresh);
    expect(await waitForPosition(db, ['stream_totals'], fresh, 0)).toBe(false);
    const v1Engine = createProjectionEngine({ db, store, batchSize: 5 });
    expect(await v1Engine.step(streamTotalsProjection({ version: 1 }))).toBe(true);
    expect(await waitForPosition(db, ['stream_totals'], fresh, 0)).toBe(true);
    expect((await rows()).reduce((a, r) => a + r.events, 0)).toBe(before.reduce((a, r) => a + r.events, 0) + 2);
    const followed = await rows();
    expect(await physical()).toEqual(['stream_totals_v1', 'stream_totals_v2']);

    await catchUpProjections({ db, store, projections: [v2], batchSize: 5 });
    expect(await physical()).toEqual(['stream_totals_v2']);
    expect(await rows()).toEqual(followed);
    expect((await projectionStatus(db, store)).map((s) => [s.version, s.state])).toEqual([[2, 'live']]);
  });

  it('a worker with an older version leaves a newer live version alone', async () => {
    const before = await rows();
    const until = await appendSample(2);
    await waitVisible(until);
    await catchUpProjections({ db, store, projections: [streamTotalsProjection({ version: 1 })] });
    expect(await physical()).toEqual(['stream_totals_v2']);
    expect(await rows()).toEqual(before);
    await catchUpProjections({ db, store, projections: [streamTotalsProjection({ version: 2 })], until });
  });

  it('rebuilds the same version on request while the live build keeps following', async () => {
    const v2 = streamTotalsProjection({ version: 2 });
    await requestRebuild(db, 'stream_totals');
    await expect(requestRebuild(db, 'nope')).rejects.toThrow(/Unknown projection/);
    const engine = createProjectionEngine({ db, store, batchSize: 5 });
    expect(await engine.step(v2)).toBe(true);
    expect(await physical()).toEqual(['stream_totals_v2', 'stream_totals_v2_r1']);
    const position = await appendSample(3);
    await waitVisible(position);
    await engine.step(v2);
    // The live build took the new events although the rebuild is far behind.
    expect(await waitForPosition(db, ['stream_totals'], position, 0)).toBe(true);
    const live = await rows();
    await catchUpProjections({ db, store, projections: [v2], batchSize: 5 });
    expect(await physical()).toEqual(['stream_totals_v2_r1']);
    expect(await rows()).toEqual(live);
    const requests = await sql<{ pending: number }>`
      SELECT count(*)::int AS pending FROM rm.projection_rebuild_requests WHERE completed_at IS NULL
    `.execute(db.kysely);
    expect(requests.rows[0]!.pending).toBe(0);
  });

  it('records a failing batch without advancing, and retries it', async () => {
    let fail = true;
    const base = streamTotalsProjection({ version: 2 });
    const flaky = {
      ...base,
      async handle(...args: Parameters<typeof base.handle>) {
        // A failure of the moment (here: the server shutting a connection down, SQLSTATE 57P01), which
        // is retried; a failure of the data parks the event's tenant instead (projection-parking test).
        if (fail) throw Object.assign(new Error('boom'), { code: '57P01' });
        return base.handle(...args);
      },
    };
    const position = await appendSample(1);
    const errors: unknown[] = [];
    const runner = startProjections({
      db,
      store,
      projections: [flaky],
      pollIntervalMs: 5,
      logger: { info: () => undefined, warn: () => undefined, error: (o) => errors.push(o) },
    });
    try {
      expect(await waitForPosition(db, ['stream_totals'], position, 300)).toBe(false);
      let lastError: string | null = null;
      for (let i = 0; i < 3000 && !lastError; i++) {
        lastError = (await projectionStatus(db, store))[0]!.last_error;
        if (!lastError) await new Promise((resolve) => setTimeout(resolve, 10));
      }
      expect(lastError).toMatch(/boom/);
      expect(errors.length).toBeGreaterThan(0);
      expect(await waitForPosition(db, ['stream_totals'], position, 0)).toBe(false);
      fail = false;
      expect(await waitForPosition(db, ['stream_totals'], position, 30_000)).toBe(true);
      expect((await projectionStatus(db, store))[0]!.last_error).toBeNull();
    } finally {
      await runner.stop();
    }
  });

  it("takes at most a projection's maxBatchEvents in one batch, below the runner's batch size", async () => {
    const until = await appendSample(8);
    const inner = streamTotalsProjection({ name: 'stream_totals_small', table: 'stream_totals_small' });
    const sizes: number[] = [];
    const small = defineProjection({
      ...inner,
      maxBatchEvents: 3,
      handle: (trx, events, t) => {
        sizes.push(events.length);
        return inner.handle(trx, events, t);
      },
    });
    await catchUpProjections({ db, store, projections: [small], batchSize: 100, until });
    expect(Math.max(...sizes)).toBe(3);
    const projected = (await rows('rm.stream_totals_small')).reduce((a, r) => a + r.events, 0);
    expect(projected).toBeGreaterThanOrEqual(8);
    expect(sizes.reduce((a, n) => a + n, 0)).toBe(projected);
    expect(() => defineProjection({ ...inner, maxBatchEvents: 0 })).toThrow(/maxBatchEvents/);
  });
});
