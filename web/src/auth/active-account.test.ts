import { describe, expect, it } from 'vitest';
import type { AccountInfo } from '@azure/msal-browser';
import { selectActiveAccount } from './active-account.ts';

const account = (id: string, claims: Record<string, unknown>) =>
  ({
    homeAccountId: id,
    environment: 'localhost:3000',
    tenantId: '',
    username: id,
    localAccountId: id,
    idTokenClaims: claims,
  }) as AccountInfo;

describe('active account', () => {
  it('is the account whose tfp ends with the sign-in policy', () => {
    const other = account('a', { tfp: 'B2C_1_password_reset' });
    const signIn = account('b', { tfp: 'B2C_1_signin' });
    expect(selectActiveAccount([other, signIn], 'B2C_1_signin')).toBe(signIn);
  });

  it('also accepts acr, case-insensitively', () => {
    const signIn = account('c', { acr: 'b2c_1_signin' });
    expect(selectActiveAccount([signIn], 'B2C_1_signin')).toBe(signIn);
  });

  it('is none when no account came through the policy', () => {
    expect(selectActiveAccount([account('d', {}), account('e', { tfp: 'B2C_1_profile' })], 'B2C_1_signin')).toBeNull();
  });
});
