import { describe, expect, it } from 'vitest';
import type { EventStore } from '@renkei/event-store';
import { holdableAppendWakeups } from './append-wakeups.ts';

/** A store whose only behaviour is announcing appends, and one method that needs its own `this`. */
class FakeStore {
  readonly #listeners = new Set<() => void>();
  appended() {
    for (const l of this.#listeners) l();
  }
  onAppend(listener: () => void) {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
  async headPosition() {
    return this.#listeners.size;
  }
}

describe('holdable append wake-ups', () => {
  it('passes wake-ups through, holds them back while held, and wakes every listener once at release', async () => {
    const fake = new FakeStore();
    const gate = holdableAppendWakeups(fake as unknown as EventStore);
    const woken: string[] = [];
    const offA = gate.store.onAppend!(() => woken.push('a'));
    gate.store.onAppend!(() => woken.push('b'));
    fake.appended();
    expect(woken).toEqual(['a', 'b']);

    gate.hold();
    fake.appended();
    fake.appended();
    expect(woken).toEqual(['a', 'b']);
    gate.release();
    expect(woken).toEqual(['a', 'b', 'a', 'b']);
    gate.release();
    expect(woken).toHaveLength(4);

    offA();
    fake.appended();
    expect(woken).toEqual(['a', 'b', 'a', 'b', 'b']);
    // Other members are the store's own, bound to it (private fields work).
    expect(await gate.store.headPosition()).toBe(1);
  });

  it('leaves a store without wake-ups as it is', () => {
    const store = { headPosition: async () => 0 } as unknown as EventStore;
    const gate = holdableAppendWakeups(store);
    expect(gate.store).toBe(store);
    gate.hold();
    gate.release();
  });
});
