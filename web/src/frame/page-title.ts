import { useEffect, useSyncExternalStore } from 'react';

interface Claim {
  readonly title: string;
}

let current: Claim | null = null;
const listeners = new Set<() => void>();
const notify = () => listeners.forEach((l) => l());

/**
 * A title only known once the page has its data (an institution's name): the page claims it while
 * mounted and the frame prefers it to the route's static `staticData.title`. A claim is released only
 * by its owner, so a page mounting before the previous one unmounts keeps its own title.
 */
const pageTitleStore = {
  claim(title: string): Claim {
    current = { title };
    notify();
    return current;
  },
  release(claim: Claim) {
    if (current !== claim) return;
    current = null;
    notify();
  },
  get: (): string | null => current?.title ?? null,
  subscribe(listener: () => void) {
    listeners.add(listener);
    return () => listeners.delete(listener);
  },
};

/** The document title of the calling page while it is mounted; undefined leaves the route's title. */
export function usePageTitle(title: string | undefined): void {
  useEffect(() => {
    if (!title) return;
    const claim = pageTitleStore.claim(title);
    return () => pageTitleStore.release(claim);
  }, [title]);
}

export function useClaimedPageTitle(): string | null {
  return useSyncExternalStore(pageTitleStore.subscribe, pageTitleStore.get, pageTitleStore.get);
}
