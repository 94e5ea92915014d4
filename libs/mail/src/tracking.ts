import { createHmac, timingSafeEqual } from 'node:crypto';

/** What a tracking link names: the tenant, the email, the recipient's address and (for a click) the link. */
export interface TrackingClaims {
  t: string;
  e: string;
  r: string;
  /** The link's URL, for a click; signed, so only the links of that very mail can be reached. */
  u?: string;
  /** When the mail was sent (epoch seconds): hits right after it are machines (link scanners), not readers. */
  s?: number;
}

const b64 = (data: Buffer | string) => Buffer.from(data).toString('base64url');

/** `<claims>.<HMAC-SHA256>`, base64url: URL-safe and unforgeable without the key. */
export function signTracking(key: Buffer, claims: TrackingClaims): string {
  const body = b64(JSON.stringify(claims));
  return `${body}.${b64(createHmac('sha256', key).update(body).digest())}`;
}

/** The claims of a token signed with `key`, or null for anything else (forged, cut, another key). */
export function verifyTracking(key: Buffer, token: string): TrackingClaims | null {
  const [body, mac, extra] = token.split('.');
  if (!body || !mac || extra !== undefined) return null;
  const expected = createHmac('sha256', key).update(body).digest();
  const given = Buffer.from(mac, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  try {
    const claims = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as TrackingClaims;
    if (typeof claims.t !== 'string' || typeof claims.e !== 'string' || typeof claims.r !== 'string') return null;
    if (claims.u !== undefined && !/^https?:\/\//i.test(claims.u)) return null;
    return claims;
  } catch {
    return null;
  }
}
