import { useSyncExternalStore } from 'react';

export interface ShownError {
  status: number;
  subCode?: string;
}

let current: ShownError | null = null;
const listeners = new Set<() => void>();

/** An error page raised outside rendering (a failed mutation); the frame shows it in place of the page. */
export const errorPageStore = {
  show(error: ShownError) {
    current = error;
    listeners.forEach((l) => l());
  },
  clear() {
    if (!current) return;
    current = null;
    listeners.forEach((l) => l());
  },
  get: () => current,
  subscribe(listener: () => void) {
    listeners.add(listener);
    return () => listeners.delete(listener);
  },
};

export function useShownError(): ShownError | null {
  return useSyncExternalStore(errorPageStore.subscribe, errorPageStore.get, errorPageStore.get);
}
