import type { EventStore, NewEvent, StreamAppend } from '@renkei/event-store';
import type { JournalSegment, TrackingJournal } from './tracking-journal.ts';

export interface TrackingHitBatcherOptions {
  store: EventStore;
  logger: {
    error(details: object, message: string): void;
    warn(details: object, message: string): void;
  };
  /** How long the first hit of a batch waits for others before the batch leaves (default 25 ms). */
  gatherMs?: number;
  /** A batch this large leaves at once, without waiting for the gather time (default 1,000). */
  maxBatch?: number;
  /**
   * Hits held at most, waiting or being stored (default 20,000). When full, `add` answers a promise
   * that resolves once the hit is taken in: the caller waits (back-pressure), nothing is dropped.
   */
  maxQueued?: number;
  /**
   * The longest a caller waits for room (default 2 s). Then it is answered anyway: with a journal
   * the hit is written there only (spilled: no memory held) and read back when there is room; without
   * one it stays in memory. Either way nothing is dropped.
   */
  maxWaitMs?: number;
  /** Tries of a hit that fails on its own while the store answers (default 5); then logged with its id. */
  maxTries?: number;
  /** The longest wait between tries while the store is failing (default 5 s; doubling from `gatherMs`). */
  retryMaxMs?: number;
  /**
   * Where answered hits are written down until stored (tracking-journal.ts); without it a killed
   * process loses the hits it had not stored. Hits left there by a dead process are stored first.
   */
  journal?: TrackingJournal;
}

interface Hit {
  stream: string;
  event: NewEvent & { id: string };
  tries: number;
  segment: JournalSegment | null;
}

/**
 * Stores tracking hits (opens, clicks) in batches: the hits of a few tens of milliseconds leave in
 * one `appendMany`, one append per delivery stream, one round at a time. At 500 hits/s on one
 * campaign that is one statement every `gatherMs` instead of 500 appends queued on one hot stream.
 *
 * When a hit is stored: its batch leaves at most `gatherMs` after its first hit came (at once when
 * `maxBatch` hits wait), or as soon as the batch before it is stored when that takes longer.
 *
 * Overload: at most `maxQueued` hits are held. Beyond, `add` answers a promise resolved once the hit
 * is taken in (hits in the order they came), and the route awaits it before answering: readers wait
 * for the store instead of hits being lost or memory growing without bound. The wait is bounded by
 * `maxWaitMs`: then the caller is answered and the hit is spilled to the journal (a line on disk,
 * nothing in memory), read back oldest first as room comes (or by the next start after a kill), so
 * a long store outage slows the answers by `maxWaitMs` at most and still loses nothing.
 *
 * Failures: a store that fails as a whole (connection lost, database down) keeps every hit, retried
 * with a doubling wait up to `retryMaxMs`; the held hits then fill up and back-pressure applies. A hit
 * that fails on its own while others are stored is tried `maxTries` times, then logged with its id.
 *
 * The store refuses a whole append when some of its ids are stored and some are new (it cannot tell
 * that from a revision race: `WrongExpectedRevisionError`; checked by tracking-hits.int.test.ts on
 * Postgres and PGlite). A stream's batch refused that way is stored hit by hit, where a stored id
 * answers as the first append did.
 *
 * Crash: `close` (the service's shutdown) stores what is held. With a `journal`, every hit is
 * written down before its answer and its line goes once it is stored, so a killed process (kill -9,
 * OOM) loses none: the next start stores what the dead one left (the machine's crash can still lose
 * what the page cache held). Without one, a killed process loses the hits it answered and had not
 * stored: `gatherMs` plus one append's worth, all it held while the store was down. Repeats are
 * harmless either way (ids say what a hit counts).
 */
export function createTrackingHitBatcher(options: TrackingHitBatcherOptions) {
  const gatherMs = options.gatherMs ?? 25;
  const maxBatch = options.maxBatch ?? 1_000;
  const maxQueued = options.maxQueued ?? 20_000;
  const maxWaitMs = options.maxWaitMs ?? 2_000;
  const maxTries = options.maxTries ?? 5;
  const retryMaxMs = options.retryMaxMs ?? 5_000;
  const { store, logger, journal } = options;
  let waiting: Hit[] = [];
  let held = 0;
  /**
   * Hits that came while `maxQueued` were held, and their callers waiting to answer (`timer` until
   * the caller is answered anyway; null once answered, the hit still waiting in memory: no journal).
   */
  const blocked: { hit: Hit; admit: () => void; timer: NodeJS.Timeout | null }[] = [];
  /** Hits answered after `maxWaitMs` and written to the journal only (read back when there is room). */
  let spilled = 0;
  let failuresInARow = 0;
  let timer: NodeJS.Timeout | null = null;
  let flushing: Promise<void> | null = null;
  // Ids stored by this process: a reader opening a mail ten times costs one append. Bounded: when
  // full it starts again (a forgotten id is only appended again, which the store ignores).
  const stored = new Set<string>();
  // Ids held or waiting to be: a burst of the same hit costs one append.
  const queued = new Set<string>();

  const markStored = (id: string) => {
    if (stored.size >= 100_000) stored.clear();
    stored.add(id);
  };

  /** Takes a hit in: written down (before its answer), then waiting for its batch. */
  function take(hit: Hit) {
    if (journal)
      try {
        hit.segment = journal.write({ stream: hit.stream, event: hit.event });
      } catch (error) {
        // A full or broken disk must not fail the reader's answer: the hit is stored from memory.
        logger.error({ err: error }, 'email tracking hit not written to the journal; kept in memory only');
      }
    held++;
    waiting.push(hit);
  }

  /** A hit leaves: stored, or given up (logged). */
  function finished(hit: Hit) {
    queued.delete(hit.event.id);
    if (hit.segment) journal?.done(hit.segment);
  }

  /** Takes in blocked, then spilled hits while fewer than `limit` are held (close: all of them). */
  function admit(limit = maxQueued) {
    while (held < limit && blocked.length > 0) {
      const { hit, admit: resolve, timer: wait } = blocked.shift()!;
      if (wait) clearTimeout(wait);
      take(hit);
      resolve();
    }
    // Then the spilled hits, oldest first, a batch's worth at a time.
    while (journal && spilled > 0 && held < limit) {
      let read;
      try {
        read = journal.unspill(Math.min(maxBatch, limit - held));
      } catch (error) {
        logger.error({ err: error }, 'email tracking: spilled hits could not be read back; the next start stores them');
        spilled = 0;
        break;
      }
      for (const { stream, event } of read.hits) take({ stream, event, tries: 0, segment: null });
      spilled -= read.hits.length;
      if (read.drained) {
        spilled = 0;
        journal.dropSpill();
      }
      if (read.hits.length === 0) break;
    }
  }

  /**
   * A caller waited `maxWaitMs` for room: it is answered now. The hit goes to the journal only (or
   * stays in memory without one) and is taken in when there is room.
   */
  function answerAnyway(entry: (typeof blocked)[number]) {
    entry.timer = null;
    if (journal) {
      try {
        journal.spill({ stream: entry.hit.stream, event: entry.hit.event });
        blocked.splice(blocked.indexOf(entry), 1);
        // Forgotten as held: a repeat is spilled again, which its id makes harmless.
        queued.delete(entry.hit.event.id);
        spilled++;
      } catch (error) {
        // No disk: the hit waits in memory, as without a journal.
        logger.error({ err: error }, 'email tracking hit not spilled to the journal; kept in memory');
      }
    }
    if (spilled === 1 && journal)
      logger.warn({ held }, 'email tracking hits: readers answered after the wait, hits kept in the journal');
    entry.admit();
  }

  function schedule() {
    if (timer || flushing || waiting.length === 0) return;
    if (failuresInARow === 0 && waiting.length >= maxBatch) {
      void flush();
      return;
    }
    const delay = failuresInARow === 0 ? gatherMs : Math.min(retryMaxMs, gatherMs * 2 ** failuresInARow);
    timer = setTimeout(() => {
      timer = null;
      void flush();
    }, delay);
  }

  async function storeOneByOne(hits: Hit[]): Promise<Hit[]> {
    const failed: Hit[] = [];
    const outcomes = await Promise.allSettled(
      hits.map((h) => store.append(h.stream, [h.event], { expectedRevision: 'any' })),
    );
    outcomes.forEach((o, i) => {
      if (o.status === 'fulfilled') markStored(hits[i]!.event.id);
      else {
        logger.error({ err: o.reason, stream: hits[i]!.stream }, 'email tracking hit not recorded; trying again');
        failed.push(hits[i]!);
      }
    });
    return failed;
  }

  /** The hits not stored, and whether the store failed as a whole (nothing of the batch stored). */
  async function storeBatch(batch: Hit[]): Promise<{ failed: Hit[]; outage: boolean }> {
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
      return { failed: batch, outage: true };
    }
    const failed: Hit[] = [];
    const retryAlone: Hit[] = [];
    outcomes.forEach((outcome, i) => {
      const hits = groups[i]!;
      if (outcome.ok) for (const h of hits) markStored(h.event.id);
      // Some of the stream's hits were stored already (another process, or before a restart).
      else if (hits.length > 1) retryAlone.push(...hits);
      else {
        logger.error({ err: outcome.error, stream: hits[0]!.stream }, 'email tracking hit not recorded; trying again');
        failed.push(...hits);
      }
    });
    if (retryAlone.length > 0) failed.push(...(await storeOneByOne(retryAlone)));
    return { failed, outage: false };
  }

  async function flushOnce(): Promise<void> {
    try {
      journal?.rotate();
    } catch (error) {
      logger.error({ err: error }, 'email tracking journal: no new segment; the current one goes on');
    }
    const batch = waiting.length > maxBatch ? waiting.splice(0, maxBatch) : waiting;
    if (batch === waiting) waiting = [];
    const { failed, outage } = await storeBatch(batch);
    failuresInARow = failed.length > 0 ? failuresInARow + 1 : 0;
    // A store that is down is no fault of the hits: they wait for it, holding their place.
    const retry = outage ? failed : failed.filter((h) => ++h.tries < maxTries);
    const again = new Set(retry);
    for (const h of batch) if (!again.has(h)) finished(h);
    held -= batch.length - retry.length;
    if (retry.length < failed.length)
      logger.error(
        { ids: failed.filter((h) => !again.has(h)).map((h) => h.event.id) },
        `email tracking hits given up after ${maxTries} tries of their own`,
      );
    waiting.unshift(...retry);
    admit();
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
      schedule();
    });
    return flushing;
  }

  if (journal) {
    const left = journal.recover();
    for (const { stream, event } of left.hits) {
      if (queued.has(event.id)) continue;
      // Beyond the bound (a dead process's spill), they wait in this process's journal only.
      if (held >= maxQueued) {
        try {
          journal.spill({ stream, event });
          spilled++;
          continue;
        } catch (error) {
          logger.error({ err: error }, 'email tracking hit not spilled to the journal; kept in memory');
        }
      }
      queued.add(event.id);
      take({ stream, event, tries: 0, segment: null });
    }
    // Written down here again: the dead process's segments can go.
    for (const { name, error } of left.release())
      // Its hits are stored now; a later start reads them again, and their ids keep them counted once.
      logger.error({ err: error, segment: name }, 'email tracking: a stopped process segment could not be removed');
    if (left.hits.length > 0) {
      logger.warn({ hits: left.hits.length }, 'email tracking hits left by a stopped process: storing them');
      schedule();
    }
  }

  return {
    /**
     * Takes a hit's event (its id says what it counts) and answers at once, or, with `maxQueued`
     * held, a promise resolved once it is taken in: the caller answers after it.
     */
    add(stream: string, event: NewEvent & { id: string }): Promise<void> | undefined {
      if (stored.has(event.id) || queued.has(event.id)) return undefined;
      queued.add(event.id);
      const hit: Hit = { stream, event, tries: 0, segment: null };
      if (held >= maxQueued || blocked.length > 0) {
        if (blocked.length === 0) logger.warn({ held }, 'email tracking hits: the store is behind; readers wait');
        return new Promise<void>((resolve) => {
          const entry: (typeof blocked)[number] = { hit, admit: resolve, timer: null };
          entry.timer = setTimeout(() => answerAnyway(entry), maxWaitMs);
          blocked.push(entry);
        });
      }
      take(hit);
      schedule();
      return undefined;
    },
    /** The hit of this id is stored by this process, held, or waiting to be: another adds nothing. */
    has(id: string): boolean {
      return stored.has(id) || queued.has(id);
    },
    /** Stores every hit held and waiting (the service's close waits for it); says what it could not. */
    async close(): Promise<void> {
      for (;;) {
        while (flushing) await flushing;
        // Hits still blocked or spilled are taken in whatever the bound: the process is going away.
        admit(Infinity);
        // A store still failing after `maxTries` tries in a row is not waited for any longer.
        if (waiting.length === 0 || failuresInARow > maxTries) break;
        await flush();
      }
      if (timer) clearTimeout(timer);
      timer = null;
      if (held > 0)
        logger.error(
          { hits: held },
          journal
            ? 'email tracking hits not recorded at close; kept in the journal for the next start'
            : 'email tracking hits not recorded at close',
        );
      // Hits still held keep their segments (the next start stores them); the rest are gone.
      if (held === 0) journal?.close();
    },
    /** Hits waiting or being stored (tests, health). */
    get held() {
      return held;
    },
    /** Hits waiting for room, their callers answered or not (tests, health). */
    get blocked() {
      return blocked.length;
    },
    /** Hits answered after the wait and kept in the journal only, not read back yet (tests, health). */
    get spilled() {
      return spilled;
    },
  };
}
