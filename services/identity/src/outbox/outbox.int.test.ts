import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { streamId, type EventStore } from '@renkei/event-store';
import { addTenant, issueAccessToken } from '../index.ts';
import { enqueueAccountUpdated } from '../accounts/account.commands.ts';
import { findAccountById, type AccountRow } from '../accounts/account.queries.ts';
import { createIdentityFixture, type IdentityFixture } from '../testing/identity-fixture.ts';
import { OutboxRelay, outboxRelay } from './outbox.ts';
import { identityDb } from '../db/identity.tables.ts';

async function renameInTransaction(f: IdentityFixture, accountId: string, names: string[]): Promise<string[]> {
  return identityDb(f.db)
    .transaction()
    .execute(async (trx) => {
      const ids: string[] = [];
      for (const username of names) {
        const account = (await trx
          .updateTable('identity.accounts')
          .set({ username })
          .where('id', '=', accountId)
          .returningAll()
          .executeTakeFirstOrThrow()) as AccountRow;
        ids.push(await enqueueAccountUpdated(trx, account, accountId));
      }
      return ids;
    });
}

const eventsOf = async (f: IdentityFixture, tenantId: string, accountId: string) =>
  f.store.readStream(streamId('account', accountId), { tenantId });

describe.each(['postgres', 'pglite'] as const)('identity outbox on %s', (engine) => {
  let f: IdentityFixture;
  let tenantId: string;
  let ownerId: string;

  beforeAll(async () => {
    f = await createIdentityFixture({}, { engine });
    ({ tenantId, ownerId } = await addTenant(f, {
      slug: 'sakura',
      name: 'さくら総合病院',
      ownerEmail: 'owner@sakura.example',
      ownerName: '佐藤 花子',
      password: 'owner-pass-1',
    }));
  });

  afterAll(async () => {
    await f?.close();
  });

  it('publishes the registration events before addTenant returns, each once', async () => {
    expect((await eventsOf(f, tenantId, ownerId)).map((e) => e.type)).toEqual(['AccountRegistered']);
    const tenantEvents = await f.store.readStream(streamId('tenant', tenantId), { tenantId });
    expect(tenantEvents.map((e) => e.type)).toEqual(['TenantRegistered']);
    const pending = await identityDb(f.db)
      .selectFrom('identity.outbox')
      .where('published_at', 'is', null)
      .selectAll()
      .execute();
    expect(pending).toEqual([]);
  });

  it('a row committed while nothing relays (the process died) is published exactly once after the restart', async () => {
    // The crash: the relay is gone before the commit, so nothing appends the event.
    await outboxRelay(f).stop();
    await f.identity.close();
    const [eventId] = await renameInTransaction(f, ownerId, ['佐藤 花子（旧姓）']);
    await new Promise((resolve) => setTimeout(resolve, 1200));
    expect((await eventsOf(f, tenantId, ownerId)).map((e) => e.id)).not.toContain(eventId);

    // The new process relays what it finds at start, without anyone asking.
    await f.restart();
    await vi.waitFor(async () => expect((await eventsOf(f, tenantId, ownerId)).map((e) => e.id)).toContain(eventId), {
      timeout: 5000,
      interval: 50,
    });
    const events = await eventsOf(f, tenantId, ownerId);
    expect(events.filter((e) => e.id === eventId)).toHaveLength(1);
    expect(events.at(-1)).toMatchObject({
      id: eventId,
      type: 'AccountUpdated',
      data: { username: '佐藤 花子（旧姓）' },
      metadata: { tenant_id: tenantId, account_id: ownerId },
    });
    expect(JSON.stringify(events.at(-1)!.data)).not.toContain('password');

    // A crash after the append but before the row was marked: the next pass appends it again, harmlessly.
    await identityDb(f.db)
      .updateTable('identity.outbox')
      .set({ published_at: null, position: null })
      .where('id', '=', eventId!)
      .execute();
    await outboxRelay(f).flush();
    const again = await eventsOf(f, tenantId, ownerId);
    expect(again.filter((e) => e.id === eventId)).toHaveLength(1);
    expect(again).toHaveLength(events.length);
    const row = await identityDb(f.db)
      .selectFrom('identity.outbox')
      .select(['published_at', 'position'])
      .where('id', '=', eventId!)
      .executeTakeFirstOrThrow();
    expect(row.published_at).not.toBeNull();
    expect(row.position).toMatch(/^\d+\.\d+$/);
  });

  it('keeps the order of one stream when an append fails, and publishes the rest later', async () => {
    await outboxRelay(f).stop();
    const stream = streamId('account', ownerId);
    let failNext = true;
    const flaky: EventStore = {
      ...f.store,
      append: async (s, events, options) => {
        if (s === stream && failNext) {
          failNext = false;
          throw new Error('store unavailable');
        }
        return f.store.append(s, events, options);
      },
    };
    const before = (await eventsOf(f, tenantId, ownerId)).length;
    const ids = await renameInTransaction(f, ownerId, ['一', '二', '三']);
    const relay = new OutboxRelay(f.db, flaky);
    await relay.flush();
    // The first failed, so the two after it waited rather than overtaking it.
    expect(await eventsOf(f, tenantId, ownerId)).toHaveLength(before);
    const failed = await identityDb(f.db)
      .selectFrom('identity.outbox')
      .select(['attempts', 'last_error'])
      .where('id', '=', ids[0]!)
      .executeTakeFirstOrThrow();
    expect(failed).toMatchObject({ attempts: 1, last_error: 'store unavailable' });

    await relay.flush();
    const events = (await eventsOf(f, tenantId, ownerId)).slice(before);
    expect(events.map((e) => e.id)).toEqual(ids);
    expect(events.map((e) => (e.data as { username: string }).username)).toEqual(['一', '二', '三']);
    outboxRelay(f).start();
  });

  it('answers a profile change with the position of its event (read-your-writes)', async () => {
    const token = await issueAccessToken(f, { tenantSlug: 'sakura', email: 'owner@sakura.example', audience: 'main' });
    const res = await f.identity.app.inject({
      method: 'PUT',
      url: '/api/users/me/profile',
      headers: { authorization: `Bearer ${token}` },
      payload: {
        username: '佐藤 花子',
        notification_settings: {
          enabled_notification: true,
          enabled_communication_reactions_summary: true,
          enabled_alerts_summary: false,
          enabled_medical_institution_report_alert: true,
        },
      },
    });
    expect(res.statusCode, res.body).toBe(200);
    const last = (await eventsOf(f, tenantId, ownerId)).at(-1)!;
    expect(last).toMatchObject({ type: 'AccountUpdated', data: { username: '佐藤 花子' } });
    expect(res.headers['x-position']).toBe(`${last.position.primary}.${last.position.secondary}`);
    expect((await findAccountById(identityDb(f.db), ownerId))!.username).toBe('佐藤 花子');
  });
});
