import { isApiError } from '../../api/api-errors.ts';
import { toast } from '../../app/toast.ts';
import { errorPageStore } from '../../errors/error-page-store.ts';
import { reportError } from '../../errors/error-reporting.ts';
import { handleUnhandledError } from '../../errors/unhandled-error.ts';

export const conflictMessage = '他の人が更新しました。最新の内容を読み込みました。';

/**
 * Edits on the CRM and label pages: a 422 stays on the form (the caller shows it), a vanished record
 * shows the 404 page, a concurrent change explains itself, the rest follows the app-wide rules.
 */
export function handleCrmMutationError(error: unknown, logout: () => void): void {
  if (isApiError(error) && error.status === 422) return;
  if (isApiError(error) && error.status === 404) return errorPageStore.show({ status: 404 });
  if (isApiError(error) && error.status === 409) return toast.error(conflictMessage);
  handleUnhandledError(error, {
    logoutRedirect: logout,
    showErrorPage: (status, subCode) => errorPageStore.show({ status, subCode }),
    report: reportError,
    toastError: toast.error,
  });
}
