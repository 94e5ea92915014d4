// Japanese glyphs everywhere, also on machines without a CJK system font; subsets load by unicode-range.
import '@fontsource/noto-sans-jp/400.css';
import '@fontsource/noto-sans-jp/700.css';
import '@mantine/core/styles.css';
import '@mantine/notifications/styles.css';
import '@mantine/dates/styles.css';
import './app/app.css';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { MantineProvider } from '@mantine/core';
import { DatesProvider } from '@mantine/dates';
import { MutationCache, QueryCache, QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { RouterProvider, createRouter } from '@tanstack/react-router';
import { routeTree } from './routeTree.gen.ts';
import { appConfig } from './app/config.ts';
import './app/dates.ts';
import { theme } from './app/theme.ts';
import { toast } from './app/toast.ts';
import { ToastHost } from './app/ToastHost.tsx';
import { ServicesProvider, type AppServices } from './app/services-context.tsx';
import { createApiClient } from './api/api-client.ts';
import { isApiError } from './api/api-errors.ts';
import { createAuthService } from './auth/auth-service.ts';
import { logout } from './auth/logout.ts';
import { analytics } from './analytics/analytics.ts';
import { initErrorReporting, onCaughtError, reportError } from './errors/error-reporting.ts';
import { errorPageStore } from './errors/error-page-store.ts';
import { RouteErrorPage } from './errors/RouteErrorPage.tsx';
import { handleUnhandledError } from './errors/unhandled-error.ts';
import { overlayStore } from './frame/overlay-store.ts';
import { watchForNewBuild } from './boot/stale-build.ts';

watchForNewBuild();

const auth = createAuthService(appConfig);
const api = createApiClient({ baseUrl: appConfig.apiBaseUrl, getToken: (audience) => auth.getToken(audience) });
const doLogout = () => logout({ auth, overlay: overlayStore, toastError: toast.error });

const handleUnhandled = (error: unknown) =>
  handleUnhandledError(error, {
    logoutRedirect: () => void doLogout(),
    showErrorPage: (status, subCode) => errorPageStore.show({ status, subCode }),
    report: reportError,
    toastError: toast.error,
  });

const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      retry: (count, error) => !isApiError(error) || (error.status >= 500 && count < 1),
      refetchOnWindowFocus: false,
    },
  },
  mutationCache: new MutationCache({
    onError: (error, _vars, _ctx, mutation) => {
      // Forms show a 422 on their fields; a mutation that handles its own errors says so in meta.
      if (mutation.meta?.handlesErrors || (isApiError(error) && error.status === 422)) return;
      handleUnhandled(error);
    },
  }),
  queryCache: new QueryCache({
    // A first load that fails shows the error page of its route; a failed refresh of shown data lands here.
    onError: (error, query) => {
      if (query.state.data !== undefined) handleUnhandled(error);
    },
  }),
});

const router = createRouter({
  routeTree,
  basepath: '/app',
  context: { queryClient, auth, api, isRouteAvailable: (path: string) => path in router.routesByPath },
  // A page's error shows inside the frame; a failure of the frame itself (current user) shows alone.
  defaultErrorComponent: RouteErrorPage,
  defaultPreload: 'intent',
  defaultPreloadStaleTime: 0,
  defaultPendingMs: 300,
  scrollRestoration: true,
});

declare module '@tanstack/react-router' {
  interface Register {
    router: typeof router;
  }
}
declare module '@tanstack/react-query' {
  interface Register {
    mutationMeta: { handlesErrors?: boolean };
  }
}

router.subscribe('onResolved', ({ toLocation }) => analytics.pageView(toLocation.pathname));

const services: AppServices = { config: appConfig, auth, api, logout: doLogout };

async function boot() {
  analytics.configure(appConfig.analyticsEndpoint);
  await initErrorReporting(appConfig.sentryDsn);
  createRoot(document.getElementById('root')!, { onCaughtError }).render(
    <StrictMode>
      <MantineProvider theme={theme}>
        <DatesProvider settings={{ locale: 'ja', firstDayOfWeek: 0 }}>
          <ToastHost />
          <ServicesProvider value={services}>
            <QueryClientProvider client={queryClient}>
              <RouterProvider router={router} />
            </QueryClientProvider>
          </ServicesProvider>
        </DatesProvider>
      </MantineProvider>
    </StrictMode>,
  );
}

void boot();
