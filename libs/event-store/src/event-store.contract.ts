import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StreamNotFoundError, WrongExpectedRevisionError } from './errors.ts';
import { comparePositions, startPosition } from './position.ts';
import { streamId } from './stream-id.ts';
import { newEventMetadata } from './metadata.ts';
import type { EventMetadata, EventStore, NewEvent, Position, RecordedEvent } from './types.ts';

export interface EventStoreUnderTest {
  store: EventStore;
  cleanup(): Promise<void>;
}

/**
 * Waits until `position` is visible to readAll. In Postgres an appended event becomes visible once
 * every older transaction of the cluster has ended, so a reader may briefly lag a writer.
 */
export async function waitVisible(store: EventStore, position: Position, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (comparePositions(await store.headPosition(), position) < 0) {
    if (Date.now() > deadline) throw new Error('waitVisible: position never became visible');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/**
 * The behaviour every EventStore implementation must share. Each implementation's int test runs it
 * with its own factory; `describeFn` lets a suite be skipped visibly when its backend is absent.
 */
export function eventStoreContract(
  name: string,
  factory: () => Promise<EventStoreUnderTest>,
  describeFn: typeof describe | typeof describe.skip = describe,
): void {
  describeFn(`EventStore contract: ${name}`, () => {
    let sut: EventStoreUnderTest;
    let store: EventStore;
    const tenant = randomUUID();
    const otherTenant = randomUUID();

    beforeAll(async () => {
      sut = await factory();
      store = sut.store;
    });
    afterAll(async () => {
      await sut?.cleanup();
    });

    const meta = (tenantId = tenant): EventMetadata => newEventMetadata(tenantId);
    const ev = (type: string, data: unknown, tenantId = tenant): NewEvent => ({
      id: randomUUID(),
      type,
      data,
      metadata: meta(tenantId),
    });
    const newStream = () => streamId('contract_test', randomUUID());

    it('appends and reads a stream back in revision order with its metadata', async () => {
      const stream = newStream();
      const events = [ev('TagCreated', { name: 'a' }), ev('TagRenamed', { name: 'b' })];
      const result = await store.append(stream, events, { expectedRevision: 'no_stream' });
      expect(result.revision).toBe(1);
      const read = await store.readStream(stream, { tenantId: tenant });
      expect(read.map((e) => [e.id, e.type, e.revision, e.data])).toEqual([
        [events[0]!.id, 'TagCreated', 0, { name: 'a' }],
        [events[1]!.id, 'TagRenamed', 1, { name: 'b' }],
      ]);
      expect(read[0]!.metadata).toEqual(events[0]!.metadata);
      expect(read[0]!.stream).toBe(stream);
      expect(read[0]!.created_at).toBeInstanceOf(Date);
      expect(comparePositions(read[1]!.position, result.position)).toBe(0);
      expect(comparePositions(read[0]!.position, read[1]!.position)).toBe(-1);
    });

    it('reads only the events of the types asked for, and a stream without any of them as not found', async () => {
      const stream = newStream();
      await store.append(stream, [ev('Started', 1), ev('Chunk', 2), ev('Chunk', 3), ev('Finished', 4)], {
        expectedRevision: 'no_stream',
      });
      const read = await store.readStream(stream, { tenantId: tenant, types: ['Started', 'Finished'] });
      expect(read.map((e) => [e.type, e.revision, e.data])).toEqual([
        ['Started', 0, 1],
        ['Finished', 3, 4],
      ]);
      await expect(store.readStream(stream, { tenantId: tenant, types: ['Other'] })).rejects.toBeInstanceOf(
        StreamNotFoundError,
      );
      await expect(store.readStream(stream, { tenantId: randomUUID(), types: ['Started'] })).rejects.toBeInstanceOf(
        StreamNotFoundError,
      );
    });

    it('generates event ids when absent', async () => {
      const stream = newStream();
      await store.append(stream, [{ type: 'TagCreated', data: {}, metadata: meta() }], { expectedRevision: 'any' });
      const read = await store.readStream(stream, { tenantId: tenant });
      expect(read[0]!.id).toMatch(/^[0-9a-f-]{36}$/);
    });

    it('checks expected revision: no_stream', async () => {
      const stream = newStream();
      await store.append(stream, [ev('A', 1)], { expectedRevision: 'no_stream' });
      await expect(store.append(stream, [ev('A', 2)], { expectedRevision: 'no_stream' })).rejects.toBeInstanceOf(
        WrongExpectedRevisionError,
      );
    });

    it('checks expected revision: stream_exists', async () => {
      const stream = newStream();
      await expect(store.append(stream, [ev('A', 1)], { expectedRevision: 'stream_exists' })).rejects.toBeInstanceOf(
        WrongExpectedRevisionError,
      );
      await store.append(stream, [ev('A', 1)], { expectedRevision: 'no_stream' });
      const r = await store.append(stream, [ev('A', 2)], { expectedRevision: 'stream_exists' });
      expect(r.revision).toBe(1);
    });

    it('checks expected revision: exact number', async () => {
      const stream = newStream();
      await store.append(stream, [ev('A', 1), ev('A', 2)], { expectedRevision: 'no_stream' });
      await expect(store.append(stream, [ev('A', 3)], { expectedRevision: 0 })).rejects.toBeInstanceOf(
        WrongExpectedRevisionError,
      );
      await expect(store.append(stream, [ev('A', 3)], { expectedRevision: 2 })).rejects.toBeInstanceOf(
        WrongExpectedRevisionError,
      );
      const ok = await store.append(stream, [ev('A', 3)], { expectedRevision: 1 });
      expect(ok.revision).toBe(2);
      await expect(store.append(newStream(), [ev('A', 1)], { expectedRevision: 0 })).rejects.toBeInstanceOf(
        WrongExpectedRevisionError,
      );
    });

    it('any appends whatever the stream state', async () => {
      const stream = newStream();
      await store.append(stream, [ev('A', 1)], { expectedRevision: 'any' });
      const r = await store.append(stream, [ev('A', 2)], { expectedRevision: 'any' });
      expect(r.revision).toBe(1);
    });

    it('lets exactly one of concurrent writers with the same expected revision win', async () => {
      const stream = newStream();
      await store.append(stream, [ev('A', 0)], { expectedRevision: 'no_stream' });
      const results = await Promise.allSettled(
        Array.from({ length: 8 }, (_, i) => store.append(stream, [ev('A', i)], { expectedRevision: 0 })),
      );
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      for (const r of results) {
        if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(WrongExpectedRevisionError);
      }
      expect(await store.readStream(stream, { tenantId: tenant })).toHaveLength(2);
    });

    it('is idempotent on event ids: a re-append returns the original result and stores nothing new', async () => {
      const stream = newStream();
      const events = [ev('A', 1), ev('A', 2)];
      const first = await store.append(stream, events, { expectedRevision: 'no_stream' });
      const again = await store.append(stream, events, { expectedRevision: 'no_stream' });
      expect(again.revision).toBe(first.revision);
      expect(comparePositions(again.position, first.position)).toBe(0);
      const third = await store.append(stream, events, { expectedRevision: 'any' });
      expect(third.revision).toBe(first.revision);
      expect(await store.readStream(stream, { tenantId: tenant })).toHaveLength(2);
    });

    it('appendMany appends many streams, each with its revision, metadata and positions in order', async () => {
      const from = await store.headPosition();
      const streams = Array.from({ length: 40 }, () => newStream());
      const older = await store.append(streams[0]!, [ev('Many', { i: -1 })], { expectedRevision: 'no_stream' });
      const appends = streams.map((stream, i) => ({
        stream,
        events: [ev('Many', { i }), ev('Many', { i, second: true })],
        expectedRevision: i === 0 ? older.revision : ('no_stream' as const),
      }));
      const woken: number[] = [];
      const off = store.onAppend?.(() => woken.push(1));
      const outcomes = await store.appendMany(appends);
      off?.();
      if (store.onAppend) expect(woken.length).toBeGreaterThan(0);
      expect(outcomes.map((o) => o.ok)).toEqual(streams.map(() => true));
      let last: Position = from;
      for (const [i, stream] of streams.entries()) {
        const read = await store.readStream(stream, { tenantId: tenant });
        const mine = read.slice(i === 0 ? 1 : 0);
        expect(mine.map((e) => e.id)).toEqual(appends[i]!.events.map((e) => e.id));
        expect(mine.map((e) => e.revision)).toEqual(i === 0 ? [1, 2] : [0, 1]);
        expect(mine[0]!.metadata).toEqual(appends[i]!.events[0]!.metadata);
        expect(comparePositions(mine[0]!.position, mine[1]!.position)).toBe(-1);
        const outcome = outcomes[i]!;
        if (!outcome.ok) throw outcome.error;
        expect(outcome.value.revision).toBe(mine[1]!.revision);
        expect(comparePositions(outcome.value.position, mine[1]!.position)).toBe(0);
        if (comparePositions(mine[1]!.position, last) > 0) last = mine[1]!.position;
      }
      // Readers see them all after the call, in the global order.
      await waitVisible(store, last);
      const seen: RecordedEvent[] = [];
      for (let next = from, guard = 0; guard < 100; guard++) {
        const page = await store.readAll(next, { types: ['Many'] });
        seen.push(...page.events.filter((e) => streams.includes(e.stream)));
        if (page.events.length === 0) break;
        next = page.next;
      }
      expect(seen).toHaveLength(81);
      for (let i = 1; i < seen.length; i++) expect(comparePositions(seen[i - 1]!.position, seen[i]!.position)).toBe(-1);
    });

    it('appendMany checks each expected revision on its own: one refused append leaves the others in', async () => {
      const taken = newStream();
      await store.append(taken, [ev('A', 0)], { expectedRevision: 'no_stream' });
      const fresh = [newStream(), newStream()];
      const outcomes = await store.appendMany([
        { stream: fresh[0]!, events: [ev('A', 1)], expectedRevision: 'no_stream' },
        { stream: taken, events: [ev('A', 2)], expectedRevision: 'no_stream' },
        { stream: fresh[1]!, events: [ev('A', 3)], expectedRevision: 'any' },
        { stream: newStream(), events: [ev('A', 4)], expectedRevision: 5 },
      ]);
      expect(outcomes.map((o) => o.ok)).toEqual([true, false, true, false]);
      for (const o of [outcomes[1]!, outcomes[3]!])
        if (!o.ok) expect(o.error).toBeInstanceOf(WrongExpectedRevisionError);
      expect(await store.readStream(taken, { tenantId: tenant })).toHaveLength(1);
      for (const stream of fresh) expect(await store.readStream(stream, { tenantId: tenant })).toHaveLength(1);
    });

    it('appendMany applies two appends to one stream in the order given', async () => {
      const stream = newStream();
      const first = ev('A', 1);
      const second = ev('A', 2);
      const outcomes = await store.appendMany([
        { stream, events: [first], expectedRevision: 'no_stream' },
        { stream: newStream(), events: [ev('A', 0)], expectedRevision: 'no_stream' },
        { stream, events: [second], expectedRevision: 0 },
      ]);
      expect(outcomes.map((o) => o.ok && o.value.revision)).toEqual([0, 0, 1]);
      expect((await store.readStream(stream, { tenantId: tenant })).map((e) => e.id)).toEqual([first.id, second.id]);
    });

    it('appendMany is idempotent on event ids: a repeated call answers as the first and stores nothing new', async () => {
      const streams = [newStream(), newStream(), newStream()];
      const appends = streams.map((stream) => ({
        stream,
        events: [ev('A', 1), ev('A', 2)],
        expectedRevision: 'no_stream' as const,
      }));
      const first = await store.appendMany(appends);
      const again = await store.appendMany(appends);
      expect(again.map((o) => o.ok)).toEqual([true, true, true]);
      again.forEach((o, i) => {
        const f = first[i]!;
        if (!o.ok || !f.ok) throw new Error('not appended');
        expect(o.value.revision).toBe(f.value.revision);
        expect(comparePositions(o.value.position, f.value.position)).toBe(0);
      });
      // Part of a call already stored (a chunk cut short and run again): the rest goes in.
      const more = newStream();
      const third = await store.appendMany([
        ...appends,
        { stream: more, events: [ev('A', 3)], expectedRevision: 'no_stream' },
      ]);
      expect(third.map((o) => o.ok)).toEqual([true, true, true, true]);
      for (const stream of streams) expect(await store.readStream(stream, { tenantId: tenant })).toHaveLength(2);
      expect(await store.readStream(more, { tenantId: tenant })).toHaveLength(1);
    });

    it('treats a stream of another tenant as not found', async () => {
      const stream = newStream();
      await store.append(stream, [ev('A', 1)], { expectedRevision: 'no_stream' });
      await expect(store.readStream(stream, { tenantId: otherTenant })).rejects.toBeInstanceOf(StreamNotFoundError);
      await expect(store.readStream(newStream(), { tenantId: tenant })).rejects.toBeInstanceOf(StreamNotFoundError);
    });

    it('reads all in global order from a checkpoint, with limits and type filters', async () => {
      const startAt = await store.headPosition();
      const streams = [newStream(), newStream(), newStream()];
      const appended: string[] = [];
      let last: Position = startAt;
      for (let i = 0; i < 9; i++) {
        const e = ev(i % 3 === 0 ? 'ReadAllX' : 'ReadAllY', { i });
        last = (await store.append(streams[i % 3]!, [e], { expectedRevision: 'any' })).position;
        appended.push(e.id!);
      }
      await waitVisible(store, last);
      const seen: RecordedEvent[] = [];
      // Only this test's streams are compared, so a store that other writers share passes too.
      const ours = () => seen.filter((e) => streams.includes(e.stream));
      let from: Position = startAt;
      for (let guard = 0; guard < 500 && ours().length < 9; guard++) {
        const page = await store.readAll(from, { limit: 4 });
        expect(page.events.length).toBeLessThanOrEqual(4);
        seen.push(...page.events);
        from = page.next;
      }
      expect(ours().map((e) => e.id)).toEqual(appended);
      for (let i = 1; i < seen.length; i++) {
        expect(comparePositions(seen[i - 1]!.position, seen[i]!.position)).toBe(-1);
      }
      const empty = await store.readAll(from, { limit: 4 });
      expect(empty.events).toEqual([]);
      expect(comparePositions(empty.next, from)).toBe(0);

      const filtered = await store.readAll(startAt, { types: ['ReadAllX'] });
      expect(filtered.events.map((e) => e.id)).toEqual([appended[0], appended[3], appended[6]]);
      // Skipped events still move the checkpoint, so a filtered reader does not rescan them.
      expect(comparePositions(filtered.next, seen[seen.length - 1]!.position)).toBeGreaterThanOrEqual(0);
      expect(comparePositions(await store.headPosition(), seen[seen.length - 1]!.position)).toBeGreaterThanOrEqual(0);
    });

    it('reads all from the start position', async () => {
      const page = await store.readAll(startPosition, { limit: 1 });
      expect(page.events).toHaveLength(1);
    });

    it('subscribe delivers every later event in order, in batches', async () => {
      const from = await store.headPosition();
      const stream = newStream();
      const expected: string[] = [];
      const received: string[] = [];
      const nexts: Position[] = [];
      let resolveDone: () => void = () => undefined;
      const done = new Promise<void>((resolve) => (resolveDone = resolve));
      const sub = store.subscribe(
        from,
        async (events, next) => {
          received.push(...events.map((e) => e.id));
          nexts.push(next);
          if (received.length >= 25) resolveDone();
        },
        { batchSize: 10 },
      );
      try {
        for (let i = 0; i < 25; i++) {
          const e = ev('Sub', { i });
          expected.push(e.id!);
          await store.append(stream, [e], { expectedRevision: 'any' });
        }
        await done;
      } finally {
        await sub.stop();
      }
      expect(received).toEqual(expected);
      for (let i = 1; i < nexts.length; i++) expect(comparePositions(nexts[i - 1]!, nexts[i]!)).toBe(-1);
    });
  });
}
