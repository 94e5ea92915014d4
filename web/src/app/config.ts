import { defaultResources, defaultSignInPolicy, defaultSpaClientId, scopeFor } from '@renkei/contracts/client';

/** Everything that differs between the built-in provider and Azure AD B2C comes from here. */
export interface AppConfig {
  authority: string;
  knownAuthorities: string[];
  clientId: string;
  scopes: { main: string; query: string; command: string };
  signInPolicy: string;
  /** Start URLs of the provider's own flows. */
  passwordForgotUrl: string;
  passwordResetUrl: string;
  /** The provider's sign-up page an invitation link opens (spec route /accounts/confirmation forwards to it). */
  accountConfirmationUrl: string;
  apiBaseUrl: string;
  sentryDsn: string | null;
  analyticsEndpoint: string | null;
  supportUrl: string;
  privacyPolicyUrl: string;
  cookiePolicyUrl: string;
}

type Env = Record<string, string | undefined>;

export function readConfig(env: Env, origin: string): AppConfig {
  const authority = env.VITE_AUTH_AUTHORITY || `${origin}/oidc`;
  const authorityUrl = new URL(authority);
  const known = env.VITE_AUTH_KNOWN_AUTHORITIES
    ? env.VITE_AUTH_KNOWN_AUTHORITIES.split(',')
        .map((s) => s.trim())
        .filter(Boolean)
    : [authorityUrl.host];
  return {
    authority,
    knownAuthorities: known,
    clientId: env.VITE_AUTH_CLIENT_ID || defaultSpaClientId,
    scopes: {
      main: env.VITE_AUTH_SCOPE_MAIN || scopeFor(defaultResources.main),
      query: env.VITE_AUTH_SCOPE_QUERY || scopeFor(defaultResources.query),
      command: env.VITE_AUTH_SCOPE_COMMAND || scopeFor(defaultResources.command),
    },
    signInPolicy: env.VITE_AUTH_POLICY || defaultSignInPolicy,
    passwordForgotUrl: env.VITE_AUTH_PASSWORD_FORGOT_URL || `${authority}/password/forgot`,
    passwordResetUrl: env.VITE_AUTH_PASSWORD_RESET_URL || `${authority}/password/reset`,
    accountConfirmationUrl: `${authority}/accounts/confirmation`,
    apiBaseUrl: env.VITE_API_BASE_URL || '/api',
    sentryDsn: env.VITE_SENTRY_DSN || null,
    analyticsEndpoint: env.VITE_ANALYTICS_ENDPOINT || null,
    supportUrl: env.VITE_SUPPORT_URL || 'https://github.com/renkei-crm/renkei/wiki',
    privacyPolicyUrl: env.VITE_PRIVACY_POLICY_URL || '/app/legal/privacy.html',
    cookiePolicyUrl: env.VITE_COOKIE_POLICY_URL || '/app/legal/cookies.html',
  };
}

export const appConfig: AppConfig = readConfig(import.meta.env as Env, window.location.origin);
