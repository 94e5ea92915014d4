import type { EventStore } from '@renkei/event-store';

/**
 * The store as the worker's loops see it, with their wake-ups at each append held back on demand. The
 * demo seed appends thousands of events in a minute before anyone can sign in; woken by each, every
 * projection and reactor loop read the store after every append (43,000 reads, half of the first start
 * on the embedded database, docs/decisions.md). Held, each loop reads on its idle poll and takes what
 * came in one batch; released, every loop is woken once so none waits out its poll.
 */
export function holdableAppendWakeups(store: EventStore) {
  if (!store.onAppend) return { store, hold: () => undefined, release: () => undefined };
  const onAppend = store.onAppend.bind(store);
  const listeners = new Set<() => void>();
  let held = false;
  const gated = new Proxy(store, {
    get(target, property) {
      if (property === 'onAppend')
        return (listener: () => void) => {
          listeners.add(listener);
          const off = onAppend(() => {
            if (!held) listener();
          });
          return () => {
            listeners.delete(listener);
            off();
          };
        };
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return {
    store: gated,
    hold() {
      held = true;
    },
    release() {
      if (!held) return;
      held = false;
      for (const listener of [...listeners]) listener();
    },
  };
}
