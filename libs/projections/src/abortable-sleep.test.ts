import { describe, expect, it } from 'vitest';
import { repeatUntilAborted, sleepUnlessAborted } from './abortable-sleep.ts';

describe('sleepUnlessAborted', () => {
  it('ends at once when the signal aborted before the wait began', async () => {
    const abort = new AbortController();
    abort.abort();
    const t0 = performance.now();
    await sleepUnlessAborted(60_000, abort.signal);
    expect(performance.now() - t0).toBeLessThan(1_000);
  });

  it('ends when the signal aborts during the wait, and leaves no listener behind', async () => {
    const abort = new AbortController();
    const wakers = new Set<() => void>();
    const waiting = sleepUnlessAborted(60_000, abort.signal, wakers);
    expect(wakers.size).toBe(1);
    abort.abort();
    await waiting;
    expect(wakers.size).toBe(0);
  });

  it('can be ended early through its waker, and otherwise runs its time', async () => {
    const wakers = new Set<() => void>();
    const waiting = sleepUnlessAborted(60_000, null, wakers);
    for (const wake of wakers) wake();
    await waiting;
    expect(wakers.size).toBe(0);
    let done = false;
    const short = sleepUnlessAborted(20, undefined).then(() => (done = true));
    expect(done).toBe(false);
    await short;
    expect(done).toBe(true);
  });
});

describe('repeatUntilAborted', () => {
  it('hands a failed round to onError and runs the next one, until aborted', async () => {
    const abort = new AbortController();
    const errors: unknown[] = [];
    let rounds = 0;
    await repeatUntilAborted(
      abort.signal,
      0,
      async () => {
        rounds++;
        if (rounds === 1) throw new Error('first round fails');
        if (rounds === 3) abort.abort();
      },
      (error) => errors.push(error),
    );
    expect(rounds).toBe(3);
    expect(errors).toHaveLength(1);
    expect((errors[0] as Error).message).toBe('first round fails');
  });
});
