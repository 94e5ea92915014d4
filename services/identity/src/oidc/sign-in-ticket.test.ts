import { describe, expect, it } from 'vitest';
import { signInTicketClearCookie, signInTicketFrom, signInTicketSetCookie } from './sign-in-ticket.ts';

describe('the sign-in ticket cookie', () => {
  it('is found among other cookies, and a missing one is told apart from an empty one', () => {
    expect(signInTicketFrom('_interaction=a; renkei_sign_in_ticket=abc-_1; _session=b')).toBe('abc-_1');
    expect(signInTicketFrom('renkei_sign_in_ticket=')).toBe('');
    expect(signInTicketFrom('other_renkei_sign_in_ticket=x; junk')).toBeUndefined();
    expect(signInTicketFrom(undefined)).toBeUndefined();
  });

  it('lives two minutes on the provider path only, out of scripts’ reach', () => {
    expect(signInTicketSetCookie('t')).toBe(
      'renkei_sign_in_ticket=t; Max-Age=120; Path=/oidc; HttpOnly; Secure; SameSite=Lax',
    );
    expect(signInTicketClearCookie).toBe(
      'renkei_sign_in_ticket=; Max-Age=0; Path=/oidc; HttpOnly; Secure; SameSite=Lax',
    );
  });
});
