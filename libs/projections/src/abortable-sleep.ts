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

/**
 * A reactor's background loop: runs `round`, then waits `intervalMs`, until `signal` aborts. A failed
 * round is handed to `onError` (the caller logs it at its own level) and the loop goes on: one bad round
 * must not end a sweep that other tenants rely on.
 */
export async function repeatUntilAborted(
  signal: AbortSignal,
  intervalMs: number,
  round: () => Promise<unknown>,
  onError: (error: unknown) => void,
): Promise<void> {
  while (!signal.aborted) {
    try {
      await round();
    } catch (error) {
      onError(error);
    }
    await sleepUnlessAborted(intervalMs, signal);
  }
}
