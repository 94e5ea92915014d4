import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, openDatabase, type Database } from '@renkei/db';
import {
  WrongExpectedRevisionError,
  createPostgresEventStore,
  newEventMetadata,
  readStreamOrEmpty,
  type EventStore,
} from '@renkei/event-store';
import { createTrackingHitBatcher } from './tracking-hits.ts';

const backends: [string, () => Promise<{ db: Database; cleanup: () => void }>][] = [
  ['PostgreSQL', async () => ({ db: await createTestDatabase(), cleanup: () => undefined })],
  [
    'PGlite',
    async () => {
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'renkei-tracking-pglite-'));
      return {
        db: await openDatabase({ dataDir }),
        cleanup: () => fs.rmSync(dataDir, { recursive: true, force: true }),
      };
    },
  ],
];

const logged: string[] = [];
const logger = { error: (_: object, m: string) => logged.push(m), warn: (_: object, m: string) => logged.push(m) };

describe.each(backends)('tracking hits on %s', (_name, open) => {
  let db: Database;
  let store: EventStore;
  let cleanup: () => void;
  const tenant = randomUUID();
  const hit = (type = 'EmailOpened') => ({
    id: randomUUID(),
    type,
    data: { email_address: 'a@example.jp' },
    metadata: newEventMetadata(tenant),
  });
  const ids = async (stream: string) => (await readStreamOrEmpty(store, stream, tenant)).map((e) => e.id);

  beforeAll(async () => {
    ({ db, cleanup } = await open());
    store = await createPostgresEventStore(db);
  });
  afterAll(async () => {
    await store?.close();
    await db?.close();
    cleanup?.();
  });

  it('the store refuses a whole append that mixes stored and new ids, and stores none of the new', async () => {
    const stream = `email_delivery-${randomUUID()}`;
    const old = hit();
    await store.append(stream, [old], { expectedRevision: 'any' });
    const fresh = hit();
    const [outcome] = await store.appendMany([{ stream, events: [old, fresh], expectedRevision: 'any' }]);
    expect(outcome!.ok).toBe(false);
    if (!outcome!.ok) expect(outcome!.error).toBeInstanceOf(WrongExpectedRevisionError);
    expect(await ids(stream)).toEqual([old.id]);
    // The same ids one by one: the stored one answers as before, the new one goes in.
    await store.append(stream, [old], { expectedRevision: 'any' });
    await store.append(stream, [fresh], { expectedRevision: 'any' });
    expect(await ids(stream)).toEqual([old.id, fresh.id]);
  });

  it('stores hits of several streams in batches; a batch mixing stored and new ids loses none', async () => {
    const streams = [`email_delivery-${randomUUID()}`, `email_delivery-${randomUUID()}`];
    const before = hit();
    // Stored by another process (or before a restart): this batcher does not know it.
    await store.append(streams[0]!, [before], { expectedRevision: 'any' });
    logged.length = 0;
    const calls: number[] = [];
    const counting: EventStore = {
      ...store,
      appendMany: (appends) => {
        calls.push(appends.length);
        return store.appendMany(appends);
      },
    };
    const hits = createTrackingHitBatcher({ store: counting, logger, gatherMs: 20 });
    const added = streams.map(() => Array.from({ length: 30 }, () => hit()));
    hits.add(streams[0]!, before);
    for (let i = 0; i < 30; i++) for (const [s, stream] of streams.entries()) hits.add(stream, added[s]![i]!);
    // Repeats of a hit cost nothing.
    hits.add(streams[1]!, added[1]![0]!);
    await hits.close();
    expect(hits.held).toBe(0);
    expect((await ids(streams[0]!)).sort()).toEqual([before.id, ...added[0]!.map((e) => e.id)].sort());
    expect((await ids(streams[1]!)).sort()).toEqual(added[1]!.map((e) => e.id).sort());
    // One appendMany with both streams, not 61 appends.
    expect(calls).toEqual([2]);
    expect(logged).toEqual([]);
  });

  it('holds at most maxQueued hits under overload, and close stores every hit it held', async () => {
    const stream = `email_delivery-${randomUUID()}`;
    const hits = createTrackingHitBatcher({ store, logger, gatherMs: 1_000, maxQueued: 50 });
    const all = Array.from({ length: 80 }, () => hit());
    for (const e of all) hits.add(stream, e);
    expect(hits.held).toBe(50);
    logged.length = 0;
    // The gather time has not passed: only close stores them.
    await hits.close();
    expect(logged).toEqual(['email tracking hits dropped: more were waiting than the batcher holds']);
    expect(hits.held).toBe(0);
    expect((await ids(stream)).sort()).toEqual(
      all
        .slice(0, 50)
        .map((e) => e.id)
        .sort(),
    );
  });
});
