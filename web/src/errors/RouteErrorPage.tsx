import { useEffect } from 'react';
import type { ErrorComponentProps } from '@tanstack/react-router';
import { isApiError, isNetworkError, networkSubCode } from '../api/api-errors.ts';
import { ErrorPage } from './ErrorPage.tsx';
import { reportError } from './error-reporting.ts';

/**
 * The browser's words for a script chunk it could not fetch (Chrome, Safari, Firefox): offline, or a build the
 * server no longer has (boot/stale-build.ts reloads a tab in that case).
 */
const chunkLoadFailure =
  /dynamically imported module|Importing a module script failed|error loading dynamically imported module/i;

export const isChunkLoadError = (error: unknown): boolean =>
  error instanceof Error && chunkLoadFailure.test(error.message);

/**
 * Anything a loader or a page throws lands here: API errors keep their status, the rest is a 500. A page that
 * could not reach the server (its data or its own script) says so and is not reported: nothing is broken.
 */
export function RouteErrorPage({ error }: ErrorComponentProps) {
  const unreachable = isNetworkError(error) || isChunkLoadError(error);
  const status = isApiError(error) ? error.status : 500;
  useEffect(() => {
    if (!unreachable) reportError(error);
  }, [error, unreachable]);
  return (
    <ErrorPage status={status} subCode={unreachable ? networkSubCode : isApiError(error) ? error.subCode : undefined} />
  );
}
