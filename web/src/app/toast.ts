import { useSyncExternalStore } from 'react';

/** Spec §9: a toast hides itself after 3000 ms and can be closed by hand. */
const toastAutoCloseMs = 3000;

type ToastSeverity = 'error' | 'success';

// The notifications package loads with the first toast, not with the first page.
let hostNeeded = false;
const listeners = new Set<() => void>();

const toastHost = {
  needed: () => hostNeeded,
  subscribe(listener: () => void) {
    listeners.add(listener);
    return () => listeners.delete(listener);
  },
};

export function useToastHostNeeded(): boolean {
  return useSyncExternalStore(toastHost.subscribe, toastHost.needed, toastHost.needed);
}

function showToast(severity: ToastSeverity, message: string): void {
  if (!hostNeeded) {
    hostNeeded = true;
    listeners.forEach((l) => l());
  }
  void import('@mantine/notifications').then(({ notifications }) =>
    notifications.show({
      color: severity === 'error' ? 'red' : 'teal',
      title: severity === 'error' ? 'エラー' : '完了',
      message,
      autoClose: toastAutoCloseMs,
      withCloseButton: true,
      'data-severity': severity,
    }),
  );
}

export const toast = {
  error: (message: string) => showToast('error', message),
  success: (message: string) => showToast('success', message),
};
