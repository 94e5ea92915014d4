import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { signFileUrl, verifyFileUrl } from './signed-url.ts';

const key = randomBytes(32);
const file = { tenantId: '00000000-0000-4000-8000-000000000001', id: '00000000-0000-4000-8000-000000000002' };
const parts = (url: string) => {
  const u = new URL(url, 'http://x');
  return { expires: u.searchParams.get('expires')!, signature: u.searchParams.get('signature')! };
};

describe('signed file links', () => {
  it('open the file they were signed for until they expire', () => {
    const now = new Date('2026-04-01T00:00:00Z');
    const { expires, signature } = parts(signFileUrl(key, file, now));
    expect(Number(expires) - now.getTime() / 1000).toBe(30 * 60);
    expect(verifyFileUrl(key, file, expires, signature, now)).toBe(true);
    expect(verifyFileUrl(key, file, expires, signature, new Date(now.getTime() + 29 * 60_000))).toBe(true);
    expect(verifyFileUrl(key, file, expires, signature, new Date(now.getTime() + 30 * 60_000))).toBe(false);
  });

  it('refuse another tenant, another file, another key, a moved expiry and a changed signature', () => {
    const now = new Date('2026-04-01T00:00:00Z');
    const { expires, signature } = parts(signFileUrl(key, file, now));
    expect(verifyFileUrl(key, { ...file, tenantId: file.id }, expires, signature, now)).toBe(false);
    expect(verifyFileUrl(key, { ...file, id: file.tenantId }, expires, signature, now)).toBe(false);
    expect(verifyFileUrl(randomBytes(32), file, expires, signature, now)).toBe(false);
    expect(verifyFileUrl(key, file, String(Number(expires) + 60), signature, now)).toBe(false);
    const altered = `${signature.slice(0, -1)}${signature.endsWith('A') ? 'B' : 'A'}`;
    expect(verifyFileUrl(key, file, expires, altered, now)).toBe(false);
    expect(verifyFileUrl(key, file, undefined, signature, now)).toBe(false);
    expect(verifyFileUrl(key, file, '1e12', signature, now)).toBe(false);
  });
});
