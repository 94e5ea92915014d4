import { describe, expect, it } from 'vitest';
import { tenantOfBearer } from './ip-allow-lists.ts';

const token = (claims: object) =>
  `Bearer ${Buffer.from('{"alg":"ES256"}').toString('base64url')}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.c2ln`;

describe('tenantOfBearer', () => {
  it('reads the tenant claim of a bearer token', () => {
    expect(tenantOfBearer(token({ tid: 't-1', sub: 'a' }))).toBe('t-1');
  });

  it('answers undefined for anything else', () => {
    expect(tenantOfBearer(undefined)).toBeUndefined();
    expect(tenantOfBearer('Basic abc')).toBeUndefined();
    expect(tenantOfBearer(token({ sub: 'a' }))).toBeUndefined();
    expect(tenantOfBearer(token({ tid: 7 }))).toBeUndefined();
    expect(tenantOfBearer('Bearer not-a-jwt')).toBeUndefined();
    expect(tenantOfBearer('Bearer e30.%%%.x')).toBeUndefined();
  });
});
