import type { AccountInfo } from '@azure/msal-browser';

/** The account signed in through the sign-in policy: its `tfp` (or `acr`) claim ends with the policy name. */
export function selectActiveAccount(accounts: readonly AccountInfo[], policy: string): AccountInfo | null {
  const wanted = policy.toLowerCase();
  for (const account of accounts) {
    const claims = (account.idTokenClaims ?? {}) as Record<string, unknown>;
    const claim = claims.tfp ?? claims.acr;
    if (typeof claim === 'string' && claim.toLowerCase().endsWith(wanted)) return account;
  }
  return null;
}

export class ActiveAccountNotFoundError extends Error {
  override readonly name = 'ActiveAccountNotFoundError';
  constructor() {
    super('active account not found error');
  }
}
