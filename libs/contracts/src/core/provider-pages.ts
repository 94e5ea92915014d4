/**
 * The policy every page the identity provider renders itself starts from; the gateway sets the same
 * on /oidc. Identity sets it before the provider runs, so the pages it writes with an inline script
 * add that script's hash to it: the auto-submitted sign-out form it renders when the session has no
 * account — a deleted account's session is removed at once — otherwise inherited the gateway's
 * `script-src 'self'`, its script was refused, and the browser stayed on a blank page instead of
 * reaching the sign-in (issue 15).
 */
export const providerPagesCsp = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "object-src 'none'",
  "base-uri 'self'",
  "frame-ancestors 'self'",
].join('; ');
