import { analytics } from '../analytics/analytics.ts';
import { logoutFailed } from '../errors/error-catalogue.ts';
import { setReportingUser } from '../errors/error-reporting.ts';
import type { AuthService } from './auth-service.ts';

export interface LogoutDeps {
  auth: Pick<AuthService, 'logout' | 'clearAccount'>;
  overlay: { show: (message: string) => void; hide: () => void };
  toastError: (message: string) => void;
}

const loggingOutMessage = 'ログアウト中です';

/** Spec §4: overlay, redirect logout back to the top, tracking cleared, overlay hidden at the end. */
export async function logout({ auth, overlay, toastError }: LogoutDeps): Promise<void> {
  overlay.show(loggingOutMessage);
  try {
    await auth.logout();
    analytics.clear();
    setReportingUser(null);
    await auth.clearAccount();
  } catch {
    toastError(logoutFailed);
  } finally {
    overlay.hide();
  }
}
