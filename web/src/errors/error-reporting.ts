import type { AnalyticsUser } from '../analytics/analytics.ts';
import { isApiError } from '../api/api-errors.ts';

type SentryModule = typeof import('@sentry/react');

let sentry: SentryModule | null = null;

/** Loads Sentry only when a DSN is configured, so it costs nothing otherwise. */
export async function initErrorReporting(dsn: string | null): Promise<void> {
  if (!dsn) return;
  sentry = await import('@sentry/react');
  sentry.init({
    dsn,
    integrations: [sentry.browserTracingIntegration()],
    tracesSampleRate: 1,
    ignoreTransactions: ['/404', /\/app\/404$/],
  });
}

export function setReportingUser(user: AnalyticsUser | null): void {
  if (!sentry) return;
  sentry.setUser(user ? { id: user.userId } : null);
  sentry.setTag('tenant_id', user?.tenantId ?? null);
  sentry.setTag('tenant_name', user?.tenantName ?? null);
}

/** Whether an error deserves a report: server-side failures (500 and above) and anything that is not an API answer. */
function isReportable(error: unknown): boolean {
  return isApiError(error) ? error.status >= 500 : true;
}

export function reportError(error: unknown): void {
  if (!isReportable(error)) return;
  if (sentry) sentry.captureException(error);
  else console.error(error);
}

/**
 * React's handler of errors an error boundary caught (createRoot's `onCaughtError`). A refused or
 * missing page (an API answer below 500: 403, 404) is an answer the boundary shows as its page, not a
 * defect: React would log each one to the console, so those stay quiet; anything else is logged as
 * React does.
 */
export function onCaughtError(error: unknown, info: { componentStack?: string | undefined }): void {
  if (!isReportable(error)) return;
  console.error(error, info.componentStack ?? '');
}
