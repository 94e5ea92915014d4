import { useEffect } from 'react';
import type { ErrorComponentProps } from '@tanstack/react-router';
import { isApiError } from '../api/api-errors.ts';
import { ErrorPage } from './ErrorPage.tsx';
import { reportError } from './error-reporting.ts';

/** Anything a loader or a page throws lands here: API errors keep their status, the rest is a 500. */
export function RouteErrorPage({ error }: ErrorComponentProps) {
  const status = isApiError(error) ? error.status : 500;
  useEffect(() => {
    reportError(error);
  }, [error]);
  return <ErrorPage status={status} subCode={isApiError(error) ? error.subCode : undefined} />;
}
