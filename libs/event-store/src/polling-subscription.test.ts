import { describe, expect, it } from 'vitest';
import { pollingSubscription } from './polling-subscription.ts';
import type { Position, ReadAllResult, RecordedEvent } from './types.ts';

const pos = (n: number): Position => ({ primary: 1n, secondary: BigInt(n) });
const event = (n: number): RecordedEvent => ({
  id: `e${n}`,
  stream: 's',
  revision: n,
  position: pos(n),
  type: 'T',
  data: {},
  metadata: { tenant_id: 't', account_id: null, correlation_id: 'c', causation_id: null, schema_version: 1 },
  created_at: new Date(0),
});

/** An in-memory log of `count` events read in pages. */
function fakeLog(count: number) {
  const all = Array.from({ length: count }, (_, i) => event(i + 1));
  return async (from: Position, options: { limit: number }): Promise<ReadAllResult> => {
    const events = all.filter((e) => e.position.secondary > from.secondary).slice(0, options.limit);
    return { events, next: events.length ? events[events.length - 1]!.position : from };
  };
}

describe('pollingSubscription', () => {
  it('delivers every event once, in order, in batches', async () => {
    const seen: string[] = [];
    let done: () => void = () => undefined;
    const finished = new Promise<void>((resolve) => (done = resolve));
    const sub = pollingSubscription(
      pos(0),
      async (events) => {
        seen.push(...events.map((e) => e.id));
        if (seen.length >= 25) done();
      },
      { readAll: fakeLog(25), pollIntervalMs: 1, batchSize: 10 },
    );
    await finished;
    await sub.stop();
    expect(seen).toEqual(Array.from({ length: 25 }, (_, i) => `e${i + 1}`));
  });

  it('retries a batch whose handler failed instead of skipping it', async () => {
    const seen: string[] = [];
    const errors: unknown[] = [];
    let failures = 2;
    let done: () => void = () => undefined;
    const finished = new Promise<void>((resolve) => (done = resolve));
    const sub = pollingSubscription(
      pos(0),
      async (events) => {
        if (events[0]!.id === 'e4' && failures-- > 0) throw new Error('handler failed');
        seen.push(...events.map((e) => e.id));
        if (seen.length >= 9) done();
      },
      { readAll: fakeLog(9), pollIntervalMs: 1, batchSize: 3, onError: (e) => errors.push(e) },
    );
    await finished;
    await sub.stop();
    expect(errors).toHaveLength(2);
    expect(seen).toEqual(['e1', 'e2', 'e3', 'e4', 'e5', 'e6', 'e7', 'e8', 'e9']);
  });

  it('wakes at once on a local append instead of waiting for the poll interval', async () => {
    let wake: () => void = () => undefined;
    let reads = 0;
    const sub = pollingSubscription(pos(0), async () => undefined, {
      readAll: async (from) => {
        reads += 1;
        return { events: [], next: from };
      },
      pollIntervalMs: 60_000,
      batchSize: 10,
      onLocalAppend: (w) => {
        wake = w;
        return () => undefined;
      },
    });
    await new Promise((resolve) => setImmediate(resolve));
    const before = reads;
    wake();
    await new Promise((resolve) => setTimeout(resolve, 20));
    await sub.stop();
    expect(reads).toBeGreaterThan(before);
  });
});
