import type { EventStore } from '@renkei/event-store';

/**
 * The waits of the loops of one runner (the projection runner's, the reactors'). Every wait ends at
 * `stop()`; an idle wait (a caught-up loop's poll) also ends at an append made in this process, which
 * is how the embedded single-process system follows its own writes at once while polling slowly.
 * A loop takes `appends()` before it reads and compares after: an append that came while it was
 * reading may be missing from what it read, so it reads again instead of waiting a poll.
 */
export function createLoopWaits(store: Pick<EventStore, 'onAppend'>) {
  const wakers = new Set<() => void>();
  const idleWakers = new Set<() => void>();
  let appends = 0;
  const unregister = store.onAppend?.(() => {
    appends += 1;
    for (const wake of [...idleWakers]) wake();
  });
  const wait = (ms: number, idle: boolean) =>
    new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        wakers.delete(done);
        idleWakers.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      wakers.add(done);
      if (idle) idleWakers.add(done);
    });
  return {
    /** A back-off or a spacing of reads: only `stop()` cuts it short. */
    sleep: (ms: number) => wait(ms, false),
    /** A caught-up loop's poll: an append of this process cuts it short too. */
    idle: (ms: number) => wait(ms, true),
    appends: () => appends,
    stop() {
      unregister?.();
      for (const wake of [...wakers]) wake();
    },
  };
}
