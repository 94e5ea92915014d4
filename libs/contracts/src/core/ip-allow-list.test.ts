import { describe, expect, it } from 'vitest';
import { isIpAllowed, isValidCidr } from './ip-allow-list.ts';

describe('isIpAllowed', () => {
  it('allows everything with an empty list', () => {
    expect(isIpAllowed('203.0.113.9', [])).toBe(true);
  });
  it('matches IPv4 subnets and single addresses', () => {
    const list = ['10.0.0.0/8', '203.0.113.9'];
    expect(isIpAllowed('10.20.30.40', list)).toBe(true);
    expect(isIpAllowed('203.0.113.9', list)).toBe(true);
    expect(isIpAllowed('203.0.113.10', list)).toBe(false);
    expect(isIpAllowed('::ffff:10.1.1.1', list)).toBe(true);
  });
  it('matches IPv6 and refuses garbage', () => {
    expect(isIpAllowed('2001:db8::1', ['2001:db8::/32'])).toBe(true);
    expect(isIpAllowed('2001:db9::1', ['2001:db8::/32'])).toBe(false);
    expect(isIpAllowed('not-an-ip', ['10.0.0.0/8'])).toBe(false);
  });
  it('validates CIDR notation', () => {
    expect(isValidCidr('192.168.0.0/16')).toBe(true);
    expect(isValidCidr('192.168.0.0/33')).toBe(false);
    expect(isValidCidr('hello')).toBe(false);
  });
});
