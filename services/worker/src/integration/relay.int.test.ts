import { randomUUID } from 'node:crypto';
import net from 'node:net';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '@renkei/db';
import { createPostgresEventStore, newEventMetadata, streamId, type EventStore } from '@renkei/event-store';
import { integrationRelayName, startIntegrationRelay } from './relay.ts';
import { FakeProducer } from './testing/fake-producer.ts';

/** The relay loop on real Postgres (event store and checkpoint) with an in-memory broker. */
describe('integration relay', () => {
  let db: TestDatabase;
  let store: EventStore;
  const errors: object[] = [];
  const logger = { info: () => undefined, warn: () => undefined, error: (o: object) => void errors.push(o) };

  beforeAll(async () => {
    db = await createTestDatabase();
    store = await createPostgresEventStore(db);
  });
  afterAll(async () => {
    await store?.close();
    await db?.close();
  });

  async function appendTags(tenant: string, n: number): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < n; i++) {
      const tagId = randomUUID();
      const id = randomUUID();
      ids.push(id);
      await store.append(
        streamId('tag', tagId),
        [
          {
            id,
            type: 'TagCreated',
            data: { tag_id: tagId, name: `tag ${i}`, description: '', group_name: null },
            metadata: newEventMetadata(tenant),
          },
        ],
        { expectedRevision: 'no_stream' },
      );
    }
    return ids;
  }

  async function checkpoint(): Promise<{ position: string; processed: number; last_error: string | null } | null> {
    const { rows } = await sql<{ position: string; processed: string; last_error: string | null }>`
      SELECT position_primary::text || '.' || position_secondary::text AS position,
             events_processed::text AS processed, last_error
        FROM rm.reactor_checkpoints WHERE name = ${integrationRelayName}
    `.execute(db.kysely);
    return rows[0] ? { ...rows[0], processed: Number(rows[0].processed) } : null;
  }

  async function until(condition: () => boolean | Promise<boolean>, timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!(await condition())) {
      if (Date.now() > deadline) throw new Error('condition not met in time');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  const ofTenant = (producer: FakeProducer, tenant: string) =>
    producer
      .events()
      .filter((e) => e.tenant_id === tenant)
      .map((e) => e.event_id);

  it('publishes history and new events in store order; the checkpoint moves once the broker acknowledged', async () => {
    const tenant = randomUUID();
    const before = await appendTags(tenant, 3);
    // Not published: must neither reach the broker nor hold the checkpoint back.
    await store.append(
      streamId('account', randomUUID()),
      [{ type: 'AccountRegistered', data: { username: 'secret' }, metadata: newEventMetadata(tenant) }],
      { expectedRevision: 'no_stream' },
    );
    const producer = new FakeProducer();
    const relay = startIntegrationRelay({ db, store, logger, brokers: null, producer, pollIntervalMs: 5 });
    expect(relay.running).toBe(true);
    await until(() => ofTenant(producer, tenant).length === 3);
    const after = await appendTags(tenant, 2);
    await until(() => ofTenant(producer, tenant).length === 5);
    await until(async () => (await checkpoint())?.processed === 5);
    await relay.stop();

    expect(ofTenant(producer, tenant)).toEqual([...before, ...after]);
    expect(producer.stored.some((m) => m.value.includes('secret'))).toBe(false);
    const head = await store.headPosition();
    expect((await checkpoint())!.position).toBe(`${head.primary}.${head.secondary}`);
    expect(producer.closed).toBe(true);
  });

  it('keeps the checkpoint while the broker refuses, retries with growing pauses, then delivers everything once', async () => {
    const tenant = randomUUID();
    const start = await checkpoint();
    const ids = await appendTags(tenant, 4);
    const producer = new FakeProducer();
    producer.failures.push('refuse', 'refuse', 'refuse', 'refuse');
    const relay = startIntegrationRelay({ db, store, logger, brokers: null, producer, pollIntervalMs: 20 });
    await until(() => producer.attempts.length >= 4);
    const during = await checkpoint();
    expect(during!.position).toBe(start!.position);
    expect(during!.last_error).toMatch(/broker unreachable/);
    await until(() => ofTenant(producer, tenant).length === 4);
    await until(async () => (await checkpoint())?.last_error === null);
    await relay.stop();

    expect(ofTenant(producer, tenant)).toEqual(ids);
    const gaps = producer.attempts.slice(1, 5).map((a, i) => a.at - producer.attempts[i]!.at);
    // The reactor loop backs off 2^n × the poll interval: 40, 80, 160, 320 ms.
    expect(gaps[0]).toBeGreaterThanOrEqual(35);
    expect(gaps[3]).toBeGreaterThanOrEqual(300);
    expect(gaps[3]).toBeGreaterThan(gaps[0]!);
    expect(errors.length).toBeGreaterThanOrEqual(4);
  });

  it('a restart resumes from the checkpoint: nothing acknowledged is sent again, nothing new is lost', async () => {
    const tenant = randomUUID();
    const first = await appendTags(tenant, 3);
    const one = new FakeProducer();
    const relay1 = startIntegrationRelay({ db, store, logger, brokers: null, producer: one, pollIntervalMs: 5 });
    await until(() => ofTenant(one, tenant).length === 3);
    await until(async () => (await checkpoint())!.position === (await headString()));
    await relay1.stop();

    const second = await appendTags(tenant, 2);
    const two = new FakeProducer();
    const relay2 = startIntegrationRelay({ db, store, logger, brokers: null, producer: two, pollIntervalMs: 5 });
    await until(() => ofTenant(two, tenant).length === 2);
    await relay2.stop();

    expect(ofTenant(one, tenant)).toEqual(first);
    expect(two.events().map((e) => e.event_id)).toEqual(second);
  });

  it('a lost acknowledgement repeats the batch: at-least-once, and deduping on event_id gives each event once', async () => {
    const tenant = randomUUID();
    const ids = await appendTags(tenant, 3);
    const producer = new FakeProducer();
    producer.failures.push('lose-ack');
    const relay = startIntegrationRelay({ db, store, logger, brokers: null, producer, pollIntervalMs: 5 });
    await until(() => ofTenant(producer, tenant).length === 6);
    await until(async () => (await checkpoint())!.position === (await headString()));
    await relay.stop();

    expect(ofTenant(producer, tenant)).toEqual([...ids, ...ids]);
    expect([...new Set(ofTenant(producer, tenant))]).toEqual(ids);
  });

  it('with the real Kafka client and an unreachable broker: records the error, keeps the checkpoint, stops promptly', async () => {
    const tenant = randomUUID();
    const start = await checkpoint();
    await appendTags(tenant, 1);
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as net.AddressInfo;
    await new Promise((resolve) => server.close(resolve));

    const relay = startIntegrationRelay({ db, store, logger, brokers: `127.0.0.1:${port}`, pollIntervalMs: 20 });
    await until(async () => /ECONNREFUSED/.test((await checkpoint())?.last_error ?? ''), 60_000);
    expect((await checkpoint())!.position).toBe(start!.position);
    const stopping = Date.now();
    await relay.stop();
    expect(Date.now() - stopping).toBeLessThan(7_000);
  });

  async function headString(): Promise<string> {
    const head = await store.headPosition();
    return `${head.primary}.${head.secondary}`;
  }
});
