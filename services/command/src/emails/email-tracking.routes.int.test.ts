import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { defaultResources } from '@renkei/contracts';
import { createTestDatabase, type TestDatabase } from '@renkei/db';
import { createPostgresEventStore, readStreamOrEmpty, streamId, type EventStore } from '@renkei/event-store';
import { signTracking } from '@renkei/mail';
import { createTestAuth } from '@renkei/service-kit/testing';
import { buildCommandApp } from '../index.ts';
import { tenantEventCount } from '../testing.ts';

let db: TestDatabase;
let store: EventStore;
let app: FastifyInstance;
const key = randomBytes(32);
const journalDir = fs.mkdtempSync(path.join(os.tmpdir(), 'renkei-tracking-journal-'));

beforeAll(async () => {
  db = await createTestDatabase();
  store = await createPostgresEventStore(db);
  const testAuth = await createTestAuth({ audience: defaultResources.command });
  app = await buildCommandApp({
    db,
    store,
    auth: testAuth.auth,
    logger: false,
    rateLimit: false,
    underPressure: false,
    emailTrackingKey: key,
    emailTrackingJournalDir: journalDir,
  });
});

afterAll(async () => {
  await app?.close();
  // Every hit stored at the close: no segment of the journal is left.
  expect(fs.readdirSync(journalDir)).toEqual([]);
  fs.rmSync(journalDir, { recursive: true, force: true });
  await store?.close();
  await db?.close();
});

const sentLongAgo = Math.floor(Date.now() / 1000) - 3600;

function claims() {
  return { t: randomUUID(), e: randomUUID(), r: 'a@example.jp', s: sentLongAgo };
}

const deliveryTypes = async (c: { t: string; e: string }) =>
  (await readStreamOrEmpty(store, streamId('email_delivery', c.e), c.t)).map((e) => e.type);

describe('email tracking', () => {
  it('counts one open per recipient; HEAD, hits right after sending and forged tokens count nothing', async () => {
    const c = claims();
    for (let i = 0; i < 2; i++) {
      const res = await app.inject({ method: 'GET', url: `/t/o/${signTracking(key, c)}` });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe('image/gif');
      expect(res.headers['cache-control']).toBe('no-store');
      // Loadable from the mail client's origin (helmet's default `same-origin` blocked it there).
      expect(res.headers['cross-origin-resource-policy']).toBe('cross-origin');
    }
    // The hit is stored just after the answer.
    await vi.waitFor(async () => expect(await deliveryTypes(c)).toEqual(['EmailOpened']));

    const fresh = { ...claims(), s: Math.floor(Date.now() / 1000) };
    await app.inject({ method: 'GET', url: `/t/o/${signTracking(key, fresh)}` });
    const head = claims();
    await app.inject({ method: 'HEAD', url: `/t/o/${signTracking(key, head)}` });
    const forged = claims();
    const res = await app.inject({ method: 'GET', url: `/t/o/${signTracking(randomBytes(32), forged)}` });
    expect(res.statusCode).toBe(200);
    // A counted hit after them is stored: theirs would have been by then.
    const control = claims();
    await app.inject({ method: 'GET', url: `/t/o/${signTracking(key, control)}` });
    await vi.waitFor(async () => expect(await deliveryTypes(control)).toEqual(['EmailOpened']));
    for (const t of [fresh, head, forged]) expect(await tenantEventCount(db, t.t)).toBe(0);
  });

  it('redirects only to the link signed into the token, and counts the click', async () => {
    const c = { ...claims(), u: 'https://example.jp/seminar?x=1' };
    const token = signTracking(key, c);
    const res = await app.inject({ method: 'GET', url: `/t/c/${token}` });
    expect(res.statusCode).toBe(302);
    expect(res.headers.location).toBe('https://example.jp/seminar?x=1');
    await vi.waitFor(async () => expect(await deliveryTypes(c)).toEqual(['EmailLinkClicked']));

    // Another URL under the same signature: refused, nothing counted.
    const [, mac] = token.split('.');
    const other = Buffer.from(JSON.stringify({ ...c, u: 'https://evil.example/' })).toString('base64url');
    const evil = await app.inject({ method: 'GET', url: `/t/c/${other}.${mac}` });
    expect(evil.statusCode).toBe(404);
    expect(evil.headers.location).toBeUndefined();
    // An open token is not a click token.
    expect((await app.inject({ method: 'GET', url: `/t/c/${signTracking(key, claims())}` })).statusCode).toBe(404);
    expect(await deliveryTypes(c)).toEqual(['EmailLinkClicked']);
  });

  it('unsubscribes on POST only (one-click), once', async () => {
    const c = claims();
    const url = `/t/u/${signTracking(key, c)}`;
    const shown = await app.inject({ method: 'GET', url });
    expect(shown.statusCode).toBe(200);
    expect(shown.body).toContain('配信を停止する');
    expect(await tenantEventCount(db, c.t)).toBe(0);
    for (let i = 0; i < 2; i++) {
      const done = await app.inject({
        method: 'POST',
        url,
        payload: 'List-Unsubscribe=One-Click',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      expect(done.statusCode).toBe(200);
      expect(done.body).toContain('配信を停止しました');
    }
    const events = await readStreamOrEmpty(store, streamId('email_unsubscribes', c.t), c.t);
    expect(events.map((e) => [e.type, e.data])).toEqual([
      ['EmailUnsubscribed', { email_address: 'a@example.jp', email_id: c.e }],
    ]);
    expect((await app.inject({ method: 'POST', url: '/t/u/forged.token' })).statusCode).toBe(404);
  });
});
