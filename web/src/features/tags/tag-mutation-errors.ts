import { isApiError } from '../../api/api-errors.ts';
import { toast } from '../../app/toast.ts';
import { errorPageStore } from '../../errors/error-page-store.ts';
import { handleUnhandledError } from '../../errors/unhandled-error.ts';
import { reportError } from '../../errors/error-reporting.ts';

/**
 * Tag actions: a vanished tag shows the 404 page, a concurrent change explains itself, a 422 stays on
 * the form (the caller shows it), anything else follows the app-wide rules.
 */
export function handleTagMutationError(error: unknown, logout: () => void): void {
  if (isApiError(error) && error.status === 422) return;
  if (isApiError(error) && error.status === 404) return errorPageStore.show({ status: 404 });
  if (isApiError(error) && error.status === 409) return toast.error(error.message);
  handleUnhandledError(error, {
    logoutRedirect: logout,
    showErrorPage: (status, subCode) => errorPageStore.show({ status, subCode }),
    report: reportError,
    toastError: toast.error,
  });
}
