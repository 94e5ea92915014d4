// Plain values only (no zod): the web's entry chunk imports these through `@renkei/contracts/client`.
/** The sign-in policy name; the active account is the one whose `tfp` (or `acr`) ends with it. */
export const defaultSignInPolicy = 'B2C_1_signin';

/** Azure-style scope per audience: `<resource>/access_as_user`. */
export function scopeFor(resource: string): string {
  return `${resource}/access_as_user`;
}

/** The client-version header every call carries (spec §7). */
export const clientVersionHeader = 'x-client-version';
export const clientVersion = 'renkei-web/1.0';
/** Read-your-writes headers (ARCHITECTURE). */
export const positionHeader = 'x-position';
export const minPositionHeader = 'x-min-position';

/**
 * Default resource identifiers (token audiences) of the built-in provider. With Azure AD B2C they are
 * configured per deployment (`AUDIENCE_MAIN`, `AUDIENCE_QUERY`, `AUDIENCE_COMMAND`).
 */
export const defaultResources = {
  main: 'https://api.renkei.local/main',
  query: 'https://api.renkei.local/query',
  command: 'https://api.renkei.local/command',
} as const;

/** The first-party SPA's client id at the built-in provider. */
export const defaultSpaClientId = 'renkei-web';
