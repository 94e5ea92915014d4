import type { EventStore, NewEvent, StreamAppend } from '@renkei/event-store';

export interface TrackingHitBatcherOptions {
  store: EventStore;
  logger: {
    error(details: object, message: string): void;
    warn(details: object, message: string): void;
  };
  /** How long the first hit of a batch waits for others (default 25 ms). */
  gatherMs?: number;
  /** Hits held at most, waiting or being stored; a hit beyond is dropped and counted (default 20,000). */
  maxQueued?: number;
  /** Tries of a hit whose append failed before it is given up (default 3). */
  maxTries?: number;
}

interface Hit {
  stream: string;
  event: NewEvent & { id: string };
  tries: number;
}

/**
 * Stores tracking hits (opens, clicks) in batches: the hits of a few tens of milliseconds leave in
 * one `appendMany`, one append per delivery stream, one round at a time. At 500 hits/s on one
 * campaign that is one statement every `gatherMs` instead of 500 appends queued on one hot stream.
 *
 * The store refuses a whole append when some of its ids are stored and some are new (it cannot tell
 * that from a revision race: `WrongExpectedRevisionError`; checked by tracking-hits.int.test.ts on
 * Postgres and PGlite). A stream's batch refused that way is stored hit by hit, where a stored id
 * answers as the first append did. Memory is bounded by `maxQueued`: under overload the excess is
 * dropped and logged (opens are a lower bound anyway), never held without limit. `close` stores
 * what is left, so a shutdown loses no hit that was answered.
 */
export function createTrackingHitBatcher(options: TrackingHitBatcherOptions) {
  const gatherMs = options.gatherMs ?? 25;
  const maxQueued = options.maxQueued ?? 20_000;
  const maxTries = options.maxTries ?? 3;
  const { store, logger } = options;
  let waiting: Hit[] = [];
  let held = 0;
  let dropped = 0;
  let timer: NodeJS.Timeout | null = null;
  let flushing: Promise<void> | null = null;
  // Ids stored by this process: a reader opening a mail ten times costs one append. Bounded: when
  // full it starts again (a forgotten id is only appended again, which the store ignores).
  const stored = new Set<string>();
  // Ids waiting or on their way: a burst of the same hit costs one append.
  const queued = new Set<string>();

  const markStored = (id: string) => {
    if (stored.size >= 100_000) stored.clear();
    stored.add(id);
  };

  function schedule() {
    if (timer || flushing || waiting.length === 0) return;
    timer = setTimeout(() => {
      timer = null;
      void flush();
    }, gatherMs);
  }

  async function storeOneByOne(hits: Hit[]): Promise<Hit[]> {
    const failed: Hit[] = [];
    const outcomes = await Promise.allSettled(
      hits.map((h) => store.append(h.stream, [h.event], { expectedRevision: 'any' })),
    );
    outcomes.forEach((o, i) => {
      if (o.status === 'fulfilled') markStored(hits[i]!.event.id);
      else {
        logger.error({ err: o.reason, stream: hits[i]!.stream }, 'email tracking hit not recorded');
        failed.push(hits[i]!);
      }
    });
    return failed;
  }

  async function storeBatch(batch: Hit[]): Promise<Hit[]> {
    const byStream = new Map<string, Hit[]>();
    for (const hit of batch) {
      const list = byStream.get(hit.stream);
      if (list) list.push(hit);
      else byStream.set(hit.stream, [hit]);
    }
    const groups = [...byStream.values()];
    const appends: StreamAppend[] = groups.map((hits) => ({
      stream: hits[0]!.stream,
      events: hits.map((h) => h.event),
      expectedRevision: 'any',
    }));
    let outcomes;
    try {
      outcomes = await store.appendMany(appends);
    } catch (error) {
      logger.error({ err: error, hits: batch.length }, 'email tracking hits not recorded; trying again');
      return batch;
    }
    const failed: Hit[] = [];
    const retryAlone: Hit[] = [];
    outcomes.forEach((outcome, i) => {
      const hits = groups[i]!;
      if (outcome.ok) for (const h of hits) markStored(h.event.id);
      // Some of the stream's hits were stored already (another process, or before a restart).
      else if (hits.length > 1) retryAlone.push(...hits);
      else {
        logger.error({ err: outcome.error, stream: hits[0]!.stream }, 'email tracking hit not recorded');
        failed.push(...hits);
      }
    });
    if (retryAlone.length > 0) failed.push(...(await storeOneByOne(retryAlone)));
    return failed;
  }

  async function flushOnce(): Promise<void> {
    const batch = waiting;
    waiting = [];
    const failed = await storeBatch(batch);
    const retry = failed.filter((h) => ++h.tries < maxTries);
    const again = new Set(retry);
    for (const h of batch) if (!again.has(h)) queued.delete(h.event.id);
    held -= batch.length - retry.length;
    if (retry.length < failed.length)
      logger.error({ hits: failed.length - retry.length }, 'email tracking hits given up after repeated failures');
    waiting.unshift(...retry);
    if (dropped > 0) {
      logger.warn({ dropped }, 'email tracking hits dropped: more were waiting than the batcher holds');
      dropped = 0;
    }
  }

  function flush(): Promise<void> {
    if (timer) {
      clearTimeout(timer);
      timer = null;
    }
    if (flushing) return flushing;
    if (waiting.length === 0) return Promise.resolve();
    flushing = flushOnce().finally(() => {
      flushing = null;
      // Hits that came while this batch was stored have waited at least that long: go at once
      // when a full gather's worth is there, else after the gather time.
      schedule();
    });
    return flushing;
  }

  return {
    /** Queues a hit's event (its id says what it counts); the caller answers at once. */
    add(stream: string, event: NewEvent & { id: string }): void {
      if (stored.has(event.id) || queued.has(event.id)) return;
      if (held >= maxQueued) {
        dropped++;
        return;
      }
      queued.add(event.id);
      held++;
      waiting.push({ stream, event, tries: 0 });
      schedule();
    },
    /** Stores every hit held (retrying failures up to `maxTries`); the service's close waits for it. */
    async close(): Promise<void> {
      for (let guard = 0; guard < maxTries + 2 && (flushing || waiting.length > 0); guard++) {
        await flushing;
        await flush();
      }
      if (timer) clearTimeout(timer);
      timer = null;
    },
    /** Hits waiting or being stored (tests, health). */
    get held() {
      return held;
    },
  };
}
