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
