import { describe, expect, it } from 'vitest';
import { createLoopWaits } from './loop-waits.ts';

function fakeStore() {
  const listeners = new Set<() => void>();
  return {
    onAppend(listener: () => void) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    append: () => listeners.forEach((l) => l()),
    listeners,
  };
}

const settled = async (p: Promise<void>) => {
  let done = false;
  void p.then(() => (done = true));
  await new Promise((r) => setTimeout(r, 5));
  return done;
};

describe('createLoopWaits', () => {
  it('ends an idle wait at an append of this process, not a sleep', async () => {
    const store = fakeStore();
    const waits = createLoopWaits(store);
    const idle = waits.idle(60_000);
    const sleep = waits.sleep(60_000);
    expect(waits.appends()).toBe(0);
    store.append();
    expect(waits.appends()).toBe(1);
    expect(await settled(idle)).toBe(true);
    expect(await settled(sleep)).toBe(false);
    waits.stop();
    expect(await settled(sleep)).toBe(true);
  });

  it('stops listening to appends at stop', () => {
    const store = fakeStore();
    const waits = createLoopWaits(store);
    expect(store.listeners.size).toBe(1);
    waits.stop();
    expect(store.listeners.size).toBe(0);
  });

  it('works with a store that does not report appends (the waits only time out)', async () => {
    const waits = createLoopWaits({});
    expect(await settled(waits.idle(1))).toBe(true);
    expect(waits.appends()).toBe(0);
  });
});
