import type { QueryClient } from '@tanstack/react-query';
import type { ApiClient, ApiTransport } from '../api/api-client.ts';
import type { AuthService } from '../auth/auth-service.ts';
import type { SignedInUser } from '../features/current-user/signed-in-user.ts';

export interface RouterContext {
  queryClient: QueryClient;
  auth: AuthService;
  api: ApiClient & { transport: ApiTransport };
  /** Whether this build has a page at the path (routes are registered only when their page works). */
  isRouteAvailable: (path: string) => boolean;
  /** Set by the `_authenticated` layout once the current user is known. */
  user?: SignedInUser;
}
