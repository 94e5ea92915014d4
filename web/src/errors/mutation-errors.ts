import { isApiError } from '../api/api-errors.ts';
import { toast } from '../app/toast.ts';
import { errorPageStore } from './error-page-store.ts';
import { reportError } from './error-reporting.ts';
import { handleUnhandledError } from './unhandled-error.ts';

/** A 409 on a screen that shows the other person's change once it is refused (the CRM page's edits). */
export const reloadedConflictMessage = '他の人が更新しました。最新の内容を読み込みました。';

export interface MutationErrorOptions {
  /** Shown on a 409 in place of the server's message, which otherwise explains the conflict. */
  conflictMessage?: string;
}

/**
 * A failed edit: a 422 stays on the form (the form shows it on its fields), a vanished record shows
 * the 404 page, a concurrent change explains itself in a toast, anything else follows spec §8.
 */
export function handleMutationError(error: unknown, logout: () => void, options: MutationErrorOptions = {}): void {
  if (isApiError(error) && error.status === 422) return;
  if (isApiError(error) && error.status === 404) return errorPageStore.show({ status: 404 });
  if (isApiError(error) && error.status === 409) return toast.error(options.conflictMessage ?? error.message);
  handleUnhandledError(error, {
    logoutRedirect: logout,
    showErrorPage: (status, subCode) => errorPageStore.show({ status, subCode }),
    report: reportError,
    toastError: toast.error,
  });
}
