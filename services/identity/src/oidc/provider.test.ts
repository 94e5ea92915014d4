import { describe, expect, it } from 'vitest';
import { withSilentConsent } from './provider.ts';

const config = { spaClientId: 'renkei-web' };
const params = (qs: string) => Object.fromEntries(new URLSearchParams(qs));

describe('withSilentConsent', () => {
  it('asks for consent on an interactive SPA request with offline_access', () => {
    const out = withSilentConsent('client_id=renkei-web&scope=openid+offline_access&state=s', config);
    expect(params(out)).toMatchObject({ prompt: 'consent', state: 's', scope: 'openid offline_access' });
  });

  it('keeps login and drops select_account, which the provider does not know', () => {
    const out = withSilentConsent(
      'client_id=renkei-web&scope=openid%20offline_access&prompt=select_account%20login',
      config,
    );
    expect(params(out).prompt!.split(' ').sort()).toEqual(['consent', 'login']);
  });

  it('leaves silent renewals, other clients and requests without offline_access alone', () => {
    for (const qs of [
      'client_id=renkei-web&scope=openid+offline_access&prompt=none',
      'client_id=other&scope=openid+offline_access',
      'client_id=renkei-web&scope=openid',
    ]) {
      expect(withSilentConsent(qs, config)).toBe(qs);
    }
  });
});
