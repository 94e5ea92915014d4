import '@testing-library/jest-dom/vitest';
import { cleanup, configure } from '@testing-library/react';
import { afterEach, vi } from 'vitest';

afterEach(() => cleanup());

// findBy…/waitFor give up after 1 s by default: on a loaded CI machine a page's first render (lazy
// chunks, Suspense, the mocked queries) can take longer, and the test failed without anything being wrong.
configure({ asyncUtilTimeout: 10_000 });

// jsdom has no layout: Mantine needs these browser APIs to exist.
const width = () => (globalThis as { __viewportWidth?: number }).__viewportWidth ?? 1280;
type MediaListener = (event: { matches: boolean; media: string }) => void;
const mediaListeners = new Set<{ query: string; listener: MediaListener; matches: boolean }>();
const queryMatches = (query: string) => {
  const max = /max-width:\s*(\d+)px/.exec(query);
  const min = /min-width:\s*(\d+)px/.exec(query);
  return (max ? width() <= Number(max[1]) : true) && (min ? width() >= Number(min[1]) : true);
};
/** A viewport change as the browser reports it: the change listeners of the queries whose answer changed. */
(globalThis as { __notifyViewport?: () => void }).__notifyViewport = () => {
  for (const entry of mediaListeners) {
    const now = queryMatches(entry.query);
    if (now !== entry.matches) {
      entry.matches = now;
      entry.listener({ matches: now, media: entry.query });
    }
  }
};
Object.defineProperty(window, 'matchMedia', {
  writable: true,
  value: vi.fn().mockImplementation((query: string) => {
    const add = (_type: string, listener: MediaListener) =>
      mediaListeners.add({ query, listener, matches: queryMatches(query) });
    const remove = (_type: string, listener: MediaListener) => {
      for (const entry of mediaListeners) if (entry.listener === listener) mediaListeners.delete(entry);
    };
    return {
      matches: queryMatches(query),
      media: query,
      onchange: null,
      addListener: (listener: MediaListener) => add('change', listener),
      removeListener: (listener: MediaListener) => remove('change', listener),
      addEventListener: add,
      removeEventListener: remove,
      dispatchEvent: vi.fn(),
    };
  }),
});
class ResizeObserverStub {
  observe() {}
  unobserve() {}
  disconnect() {}
}
globalThis.ResizeObserver = ResizeObserverStub as unknown as typeof ResizeObserver;
window.HTMLElement.prototype.scrollIntoView = () => {};
window.scrollTo = (() => {}) as typeof window.scrollTo;
// Textarea autosize listens for web-font loading, which jsdom does not implement.
if (!('fonts' in document)) {
  Object.defineProperty(document, 'fonts', {
    value: { addEventListener: () => {}, removeEventListener: () => {}, ready: Promise.resolve() },
  });
}
