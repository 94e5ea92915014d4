import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '@renkei/db';
import { waitVisible } from '../event-store.contract.ts';
import { newEventMetadata } from '../metadata.ts';
import { comparePositions, startPosition } from '../position.ts';
import { streamId } from '../stream-id.ts';
import type { EventStore, NewEvent, Position } from '../types.ts';
import { createPostgresEventStore } from './postgres-event-store.ts';

const WRITERS = 16;
const TOTAL_EVENTS = 50_000;
const STREAMS_PER_WRITER = 40;

describe('Postgres event store under concurrent writers', () => {
  let db: TestDatabase;
  let store: EventStore;

  beforeAll(async () => {
    db = await createTestDatabase({ poolMax: 24 });
    // As many statements in flight as writers: the proof needs that many transactions committing
    // out of order, which group commit would otherwise fold into a few.
    store = await createPostgresEventStore(db, { maxBatchesInFlight: WRITERS });
  });
  afterAll(async () => {
    await store?.close();
    await db?.close();
  });

  it('a follower reading all while 16 writers append sees every event exactly once, in the final order', async () => {
    const tenant = randomUUID();
    const perWriter = Math.ceil(TOTAL_EVENTS / WRITERS);
    let writersDone = false;
    let lastAppended: Position = startPosition;

    const writer = async (w: number) => {
      const streams = Array.from({ length: STREAMS_PER_WRITER }, () => streamId('load', randomUUID()));
      const revisions = new Map<string, number>();
      let written = 0;
      let i = 0;
      while (written < perWriter) {
        const stream = streams[i++ % streams.length]!;
        const size = Math.min(1 + ((i * 7 + w) % 4), perWriter - written);
        const events: NewEvent[] = Array.from({ length: size }, (_, k) => ({
          id: randomUUID(),
          type: 'LoadEvent',
          data: { w, n: written + k },
          metadata: newEventMetadata(tenant),
        }));
        const current = revisions.get(stream);
        const result = await store.append(stream, events, {
          expectedRevision: current === undefined ? 'no_stream' : current,
        });
        revisions.set(stream, result.revision);
        if (comparePositions(result.position, lastAppended) > 0) lastAppended = result.position;
        written += size;
      }
      return written;
    };

    // The follower's view, and a naive reader that trusts the position alone: positions are drawn in
    // commit order, so it must see every event too (before that, it missed 0.05-0.09% of them).
    const seen: string[] = [];
    const naiveSeen = new Set<string>();
    const follower = async () => {
      let from: Position = startPosition;
      let naiveFrom = 0n;
      for (;;) {
        const finishing = writersDone && comparePositions(from, lastAppended) >= 0;
        const page = await store.readAll(from, { limit: 1000 });
        for (const e of page.events) seen.push(e.id);
        from = page.next;
        const naive = await db.pool.query<{ event_id: string; global_position: string }>(
          'SELECT event_id, global_position FROM es.events WHERE global_position > $1 ORDER BY global_position LIMIT 1000',
          [naiveFrom.toString()],
        );
        for (const r of naive.rows) naiveSeen.add(r.event_id);
        if (naive.rows.length > 0) naiveFrom = BigInt(naive.rows[naive.rows.length - 1]!.global_position);
        if (finishing && page.events.length === 0 && naive.rows.length === 0) return;
      }
    };

    const followerDone = follower();
    const written = await Promise.all(Array.from({ length: WRITERS }, (_, w) => writer(w)));
    writersDone = true;
    await followerDone;
    await waitVisible(store, lastAppended);

    const total = written.reduce((a, b) => a + b, 0);
    expect(total).toBeGreaterThanOrEqual(TOTAL_EVENTS);

    const final: string[] = [];
    let from: Position = startPosition;
    for (;;) {
      const page = await store.readAll(from, { limit: 10_000 });
      if (page.events.length === 0) break;
      final.push(...page.events.map((e) => e.id));
      from = page.next;
    }
    const stored = await db.pool.query<{ n: string }>('SELECT count(*) AS n FROM es.events');
    expect(Number(stored.rows[0]!.n)).toBe(total);
    expect(final).toHaveLength(total);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toHaveLength(total);
    expect(seen).toEqual(final);
    expect(naiveSeen.size).toBe(total);

    console.log(
      `[event-store] concurrency: ${total} events, follower saw ${seen.length} exactly once in final order; ` +
        `a position-only cursor saw ${naiveSeen.size}`,
    );
  });
});
