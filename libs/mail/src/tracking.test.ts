import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { signTracking, verifyTracking } from './tracking.ts';

describe('tracking tokens', () => {
  const key = randomBytes(32);
  const claims = { t: 'tenant', e: 'email', r: 'a@example.jp', u: 'https://example.jp/a' };

  it('verifies what it signed, and nothing forged, altered or signed with another key', () => {
    const token = signTracking(key, claims);
    expect(verifyTracking(key, token)).toEqual(claims);
    expect(verifyTracking(randomBytes(32), token)).toBeNull();
    const [, mac] = token.split('.');
    const altered = Buffer.from(JSON.stringify({ ...claims, u: 'https://evil.example' })).toString('base64url');
    expect(verifyTracking(key, `${altered}.${mac}`)).toBeNull();
    expect(verifyTracking(key, 'garbage')).toBeNull();
    expect(verifyTracking(key, `${token}.x`)).toBeNull();
  });

  it('refuses a signed link that is not http(s)', () => {
    expect(verifyTracking(key, signTracking(key, { ...claims, u: 'javascript:alert(1)' }))).toBeNull();
  });
});
