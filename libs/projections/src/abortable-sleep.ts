/**
 * Waits `ms`, or less when `signal` aborts. An abort that came before the wait began ends it at once:
 * a listener added to an already aborted signal never fires, so a background loop whose round was
 * running when the worker stopped would otherwise hold the stop for its whole interval (an hour for
 * the sweep of unreferenced files). `wakers`, when given, holds the wait's early end while it runs, for
 * a loop that is also woken by other news.
 */
export function sleepUnlessAborted(
  ms: number,
  signal: AbortSignal | null | undefined,
  wakers?: Set<() => void>,
): Promise<void> {
  if (signal?.aborted) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      wakers?.delete(done);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    wakers?.add(done);
    signal?.addEventListener('abort', done, { once: true });
  });
}
