import { isApiError, isNetworkError } from '../api/api-errors.ts';
import { couldNotConnect, somethingWentWrong } from './error-catalogue.ts';

export interface UnhandledErrorHandlers {
  logoutRedirect: () => void;
  showErrorPage: (status: number, subCode?: string) => void;
  report: (error: unknown) => void;
  toastError: (message: string) => void;
}

/**
 * Spec §8 for a failed call nobody handled: 401 signs out by redirect, 403 shows the 403 page, 500 and
 * above are reported, anything else is a generic toast. A 422 belongs to its form and never gets here.
 * A call that got no answer (offline) is no server fault: it says so and is not reported.
 */
export function handleUnhandledError(error: unknown, h: UnhandledErrorHandlers): void {
  if (isNetworkError(error)) return h.toastError(couldNotConnect);
  const status = isApiError(error) ? error.status : 500;
  if (status === 401) return h.logoutRedirect();
  if (status === 403) return h.showErrorPage(403, isApiError(error) ? error.subCode : undefined);
  if (status >= 500) {
    h.report(error);
    return h.toastError(isApiError(error) ? error.message : somethingWentWrong);
  }
  h.toastError(somethingWentWrong);
}
