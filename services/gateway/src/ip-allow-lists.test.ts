import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { followIpAllowLists, tenantOfBearer } from './ip-allow-lists.ts';

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

describe('followIpAllowLists', () => {
  /** A fake identity: answers the lists while `status` is 200; counts the polls that it refused. */
  async function fakeIdentity() {
    const state = { status: 200, refused: 0 };
    const server = http.createServer((_, res) => {
      if (state.status !== 200) state.refused++;
      res.writeHead(state.status, { 'content-type': 'application/json' });
      res.end(state.status === 200 ? JSON.stringify({ tenants: { t1: ['10.0.0.0/8'] } }) : '{}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/internal/ip_allow_lists`;
    return { state, url, close: () => server.close() };
  }
  const until = async (check: () => boolean) => {
    while (!check()) await new Promise((r) => setTimeout(r, 10));
  };

  it('keeps the last lists through failed polls and says nothing while they are recent', async () => {
    const identity = await fakeIdentity();
    const errors: unknown[] = [];
    const source = followIpAllowLists({ url: identity.url, intervalMs: 10, onError: (e) => errors.push(e) });
    try {
      await source.loaded;
      expect(source.allows('t1', '10.1.2.3')).toBe(true);
      expect(source.allows('t1', '192.168.0.1')).toBe(false);
      identity.state.status = 503;
      await until(() => identity.state.refused >= 3);
      // A busy moment (default: lists younger than 30 s): nothing reported, the lists still in force.
      expect(errors).toEqual([]);
      expect(source.allows('t1', '192.168.0.1')).toBe(false);
    } finally {
      source.close();
      identity.close();
    }
  });

  it('reports failed polls once the lists are old', async () => {
    const identity = await fakeIdentity();
    const errors: unknown[] = [];
    const source = followIpAllowLists({
      url: identity.url,
      intervalMs: 10,
      quietMs: 0,
      onError: (e) => errors.push(e),
    });
    try {
      await source.loaded;
      identity.state.status = 503;
      await until(() => errors.length > 0);
      expect(String(errors[0])).toContain('503');
      expect(source.allows('t1', '10.1.2.3')).toBe(true);
    } finally {
      source.close();
      identity.close();
    }
  });
});
