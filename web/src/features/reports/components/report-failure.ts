import { isApiError } from '../../../api/api-errors.ts';

/**
 * A failed save: a 422 goes back to the form (its messages on their fields), anything else is reported
 * (a 409 as a toast) and rethrown so the form stops.
 */
export function reportFailure(error: unknown, onError: (error: unknown) => void): never {
  if (!(isApiError(error) && error.status === 422)) onError(error);
  throw error;
}
