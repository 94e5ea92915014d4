import {
  EventType,
  InteractionRequiredAuthError,
  PublicClientApplication,
  type AccountInfo,
  type AuthenticationResult,
} from '@azure/msal-browser';
import type { Audience } from '@renkei/contracts';
import type { AppConfig } from '../app/config.ts';
import { ActiveAccountNotFoundError, selectActiveAccount } from './active-account.ts';

export interface AuthService {
  /** Handles a pending sign-in redirect and picks the active account. */
  start(): Promise<void>;
  activeAccount(): AccountInfo | null;
  login(returnTo?: string): Promise<void>;
  getToken(audience: Audience): Promise<string>;
  logout(): Promise<void>;
  /**
   * Forgets the account here, its cached tokens too: the next start signs in again (the provider
   * decides whether a password is needed). Keeping the tokens made a deleted account's next start
   * pick the account again and answer the 401 page again, never the sign-in (issue 15).
   */
  clearAccount(): Promise<void>;
}

const appBase = '/app/';

/** Resolves never: the page is navigating away to the provider. */
const navigatingAway = () => new Promise<never>(() => {});

export function createAuthService(config: AppConfig): AuthService {
  const origin = window.location.origin;
  const msal = new PublicClientApplication({
    auth: {
      clientId: config.clientId,
      authority: config.authority,
      knownAuthorities: config.knownAuthorities,
      redirectUri: `${origin}${appBase}auth/redirect`,
      postLogoutRedirectUri: `${origin}${appBase}`,
    },
    cache: { cacheLocation: 'sessionStorage' },
    system: { protocolMode: 'OIDC' },
  });
  let started: Promise<void> | null = null;

  const pickActive = () => {
    const active = selectActiveAccount(msal.getAllAccounts(), config.signInPolicy);
    msal.setActiveAccount(active);
    return active;
  };

  const loginRequest = (returnTo?: string) => ({
    scopes: [config.scopes.main],
    extraScopesToConsent: [config.scopes.query, config.scopes.command],
    redirectStartPage: returnTo ?? window.location.href,
  });

  return {
    start() {
      started ??= (async () => {
        await msal.initialize();
        msal.addEventCallback((message) => {
          if (message.eventType === EventType.LOGIN_SUCCESS) {
            const result = message.payload as AuthenticationResult | null;
            if (result?.account) pickActive();
          }
        });
        const result = await msal.handleRedirectPromise();
        if (result?.account) msal.setActiveAccount(result.account);
        pickActive();
      })();
      return started;
    },
    activeAccount: () => msal.getActiveAccount(),
    async login(returnTo) {
      await msal.loginRedirect(loginRequest(returnTo));
      return navigatingAway();
    },
    async getToken(audience) {
      const account = msal.getActiveAccount() ?? pickActive();
      if (!account) throw new ActiveAccountNotFoundError();
      const scope = config.scopes[audience];
      try {
        const result = await msal.acquireTokenSilent({ scopes: [scope], account });
        return result.accessToken;
      } catch (error) {
        if (error instanceof InteractionRequiredAuthError) {
          await msal.acquireTokenRedirect({ ...loginRequest(), scopes: [scope], account });
          return navigatingAway();
        }
        throw error;
      }
    },
    async logout() {
      const account = msal.getActiveAccount();
      await msal.logoutRedirect({
        account: account ?? undefined,
        idTokenHint: account?.idToken,
        postLogoutRedirectUri: `${origin}${appBase}`,
      });
    },
    async clearAccount() {
      const account = msal.getActiveAccount();
      msal.setActiveAccount(null);
      if (account) await msal.clearCache({ account });
    },
  };
}
