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
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createTrackingHitBatcher } from './tracking-hits.ts';
import { openTrackingJournal } from './tracking-journal.ts';

const CHILD = path.join(path.dirname(fileURLToPath(import.meta.url)), 'testing', 'tracking-journal-child.ts');

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

  it('holds at most maxQueued hits under overload: the others wait for room (back-pressure), none is dropped', async () => {
    const stream = `email_delivery-${randomUUID()}`;
    let release!: () => void;
    const storeOpen = new Promise<void>((resolve) => (release = resolve));
    const slow: EventStore = {
      ...store,
      appendMany: async (appends) => {
        await storeOpen;
        return store.appendMany(appends);
      },
    };
    const hits = createTrackingHitBatcher({ store: slow, logger, gatherMs: 1, maxQueued: 50, maxBatch: 20 });
    const all = Array.from({ length: 80 }, () => hit());
    const answers = all.map((e) => hits.add(stream, e));
    // The first 50 are taken at once; the 30 beyond wait for room.
    expect(answers.slice(0, 50).every((a) => a === undefined)).toBe(true);
    expect(answers.slice(50).every((a) => a instanceof Promise)).toBe(true);
    expect(hits.held).toBe(50);
    expect(hits.blocked).toBe(30);
    let answered = 0;
    for (const a of answers.slice(50)) void a!.then(() => answered++);
    release();
    await Promise.all(answers.slice(50));
    expect(answered).toBe(30);
    await hits.close();
    expect(hits.held).toBe(0);
    expect((await ids(stream)).sort()).toEqual(all.map((e) => e.id).sort());
  });

  it('answers a reader after maxWaitMs when full: the hit is spilled to the journal, read back and stored when the store is back', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'renkei-tracking-spill-'));
    const stream = `email_delivery-${randomUUID()}`;
    let release!: () => void;
    const storeOpen = new Promise<void>((resolve) => (release = resolve));
    const slow: EventStore = {
      ...store,
      appendMany: async (appends) => {
        await storeOpen;
        return store.appendMany(appends);
      },
    };
    const hits = createTrackingHitBatcher({
      store: slow,
      logger,
      gatherMs: 1,
      maxQueued: 10,
      maxBatch: 4,
      maxWaitMs: 5,
      journal: openTrackingJournal(dir),
    });
    const all = Array.from({ length: 25 }, () => hit());
    const answers = all.map((e) => hits.add(stream, e));
    expect(answers.filter((a) => a instanceof Promise)).toHaveLength(15);
    // Every caller is answered while the store still answers nothing (else this waits for ever).
    await Promise.all(answers);
    expect(hits.held).toBe(10);
    expect(hits.blocked).toBe(0);
    expect(hits.spilled).toBe(15);
    const onDisk = fs
      .readdirSync(dir)
      .filter((f) => f.includes('spill'))
      .flatMap((f) => fs.readFileSync(path.join(dir, f), 'utf8').trim().split('\n'));
    expect(onDisk.map((line) => (JSON.parse(line) as { event: { id: string } }).event.id).sort()).toEqual(
      all
        .slice(10)
        .map((e) => e.id)
        .sort(),
    );
    // The store is back: the spilled hits are read back as room comes, and every hit is stored once.
    release();
    while (hits.held > 0 || hits.spilled > 0) await new Promise((r) => setTimeout(r, 5));
    await hits.close();
    expect((await ids(stream)).sort()).toEqual(all.map((e) => e.id).sort());
    expect(fs.readdirSync(dir)).toEqual([]);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('without a journal, a reader is answered after maxWaitMs too; the hit waits in memory and is stored', async () => {
    const stream = `email_delivery-${randomUUID()}`;
    let release!: () => void;
    const storeOpen = new Promise<void>((resolve) => (release = resolve));
    const slow: EventStore = {
      ...store,
      appendMany: async (appends) => {
        await storeOpen;
        return store.appendMany(appends);
      },
    };
    const hits = createTrackingHitBatcher({ store: slow, logger, gatherMs: 1, maxQueued: 5, maxWaitMs: 5 });
    const all = Array.from({ length: 12 }, () => hit());
    const answers = all.map((e) => hits.add(stream, e));
    await Promise.all(answers);
    expect(hits.held).toBe(5);
    expect(hits.blocked).toBe(7);
    release();
    await hits.close();
    expect((await ids(stream)).sort()).toEqual(all.map((e) => e.id).sort());
  });

  it('keeps every hit while the store is down and stores them when it is back', async () => {
    const stream = `email_delivery-${randomUUID()}`;
    let failures = 0;
    const down: EventStore = {
      ...store,
      appendMany: (appends) => {
        if (failures++ < 8) return Promise.reject(new Error('connection lost'));
        return store.appendMany(appends);
      },
    };
    logged.length = 0;
    const hits = createTrackingHitBatcher({ store: down, logger, gatherMs: 1, retryMaxMs: 2, maxTries: 2 });
    const all = Array.from({ length: 10 }, () => hit());
    for (const e of all) hits.add(stream, e);
    while (hits.held > 0) await new Promise((r) => setTimeout(r, 5));
    await hits.close();
    // Eight failed tries of the store, four times the hits' own maxTries: none was given up.
    expect(failures).toBe(9);
    expect((await ids(stream)).sort()).toEqual(all.map((e) => e.id).sort());
    expect(logged.filter((m) => m.includes('given up'))).toEqual([]);
  });

  it.each([
    ['', []],
    [' (20 of them answered after the wait and spilled)', ['10']],
  ])(
    'a process killed with hits answered and not stored leaves them in its journal%s; the next start stores every one',
    async (_, extra) => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'renkei-tracking-journal-'));
      const stream = `email_delivery-${randomUUID()}`;
      const child = spawn(process.execPath, ['--import', 'tsx', CHILD, dir, stream, tenant, '30', ...extra], {
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      let out = '';
      const answered = await new Promise<string[]>((resolve, reject) => {
        child.stdout.on('data', (chunk: Buffer) => {
          out += chunk.toString();
          if (out.endsWith('\n')) resolve(JSON.parse(out) as string[]);
        });
        child.once('exit', (code) => reject(new Error(`child exited with ${code} before answering`)));
      });
      const killed = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await killed;
      expect(answered).toHaveLength(30);
      expect(await ids(stream)).toEqual([]);
      expect(fs.readdirSync(dir).length).toBeGreaterThan(0);

      // The next start (another process id, the dead one's gone) stores what the journal kept.
      const hits = createTrackingHitBatcher({ store, logger, journal: openTrackingJournal(dir) });
      await hits.close();
      expect((await ids(stream)).sort()).toEqual([...answered].sort());
      expect(fs.readdirSync(dir)).toEqual([]);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  );
});
