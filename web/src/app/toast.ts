import { notifications } from '@mantine/notifications';

/** Spec §9: a toast hides itself after 3000 ms and can be closed by hand. */
export const toastAutoCloseMs = 3000;

export type ToastSeverity = 'error' | 'success';

export function showToast(severity: ToastSeverity, message: string): void {
  notifications.show({
    color: severity === 'error' ? 'red' : 'teal',
    title: severity === 'error' ? 'エラー' : '完了',
    message,
    autoClose: toastAutoCloseMs,
    withCloseButton: true,
    'data-severity': severity,
  });
}

export const toast = {
  error: (message: string) => showToast('error', message),
  success: (message: string) => showToast('success', message),
};
