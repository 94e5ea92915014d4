import { useSyncExternalStore } from 'react';

let message: string | null = null;
const listeners = new Set<() => void>();

/** The full-screen loading overlay shown during sign-out and other app-wide waits. */
export const overlayStore = {
  show(next: string) {
    message = next;
    listeners.forEach((l) => l());
  },
  hide() {
    message = null;
    listeners.forEach((l) => l());
  },
  get: () => message,
  subscribe(listener: () => void) {
    listeners.add(listener);
    return () => listeners.delete(listener);
  },
};

export function useOverlayMessage(): string | null {
  return useSyncExternalStore(overlayStore.subscribe, overlayStore.get, overlayStore.get);
}
