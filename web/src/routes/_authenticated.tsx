import { useQuery } from '@tanstack/react-query';
import { createFileRoute } from '@tanstack/react-router';
import { lazy, Suspense } from 'react';
import { analytics } from '../analytics/analytics.ts';
import { ApiError, isApiError } from '../api/api-errors.ts';
import { setReportingUser } from '../errors/error-reporting.ts';
import { currentUserQueries } from '../features/current-user/current-user.queries.ts';
import { AppFrame } from '../frame/AppFrame.tsx';

// Sends communications kept on the device while offline, with no form open; loaded after the page.
const PendingCommunicationsSender = lazy(() =>
  import('../features/communications/components/PendingCommunicationsSender.tsx').then((m) => ({
    default: m.PendingCommunicationsSender,
  })),
);

/**
 * Spec §4 startup: pending redirect handled, sign in when no account, then the current user; pages
 * render only once the user id is known.
 */
export const Route = createFileRoute('/_authenticated')({
  beforeLoad: async ({ context, location }) => {
    await context.auth.start();
    if (!context.auth.activeAccount()) {
      await context.auth.login(`${window.location.origin}/app${location.href}`);
    }
    try {
      const user = await context.queryClient.ensureQueryData(currentUserQueries.detail(context.api));
      const tracked = { userId: user.id, tenantId: user.tenant.id, tenantName: user.tenant.name };
      analytics.identify(tracked);
      setReportingUser(tracked);
      return { user };
    } catch (error) {
      await context.auth.clearAccount();
      // A 403 keeps its reading (IP or permission); every other failure behaves like an expired session.
      if (isApiError(error) && error.status === 403) throw error;
      throw new ApiError(401, isApiError(error) ? error.message : '認証が必要です。');
    }
  },
  component: AuthenticatedLayout,
});

function AuthenticatedLayout() {
  const { user: signedIn, api } = Route.useRouteContext();
  // Observed, so a profile change (which invalidates the current user) shows in the header at once.
  const { data: user } = useQuery({ ...currentUserQueries.detail(api), initialData: signedIn });
  return (
    <>
      <AppFrame user={user} />
      {user.features.includes('communications') && (
        <Suspense fallback={null}>
          <PendingCommunicationsSender accountId={user.id} />
        </Suspense>
      )}
    </>
  );
}
