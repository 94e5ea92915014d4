import { randomUUID } from 'node:crypto';
import { Kafka, logLevel } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '@renkei/db';
import { createPostgresEventStore, newEventMetadata, streamId, type EventStore } from '@renkei/event-store';
import type { IntegrationEventV1 } from './integration-events.ts';
import { parseBrokers } from './kafka-producer.ts';
import { startIntegrationRelay } from './relay.ts';

/** The relay against a real broker; runs only where KAFKA_BROKERS points at one that answers. */
const brokers = parseBrokers(process.env.KAFKA_BROKERS);

async function reachable(): Promise<boolean> {
  if (brokers.length === 0) return false;
  const admin = new Kafka({
    brokers,
    clientId: 'renkei-test-probe',
    connectionTimeout: 3_000,
    retry: { retries: 0 },
    logLevel: logLevel.NOTHING,
  }).admin();
  try {
    await Promise.race([
      admin.connect(),
      new Promise((_, reject) => setTimeout(() => reject(new Error('timeout')), 5_000)),
    ]);
    return true;
  } catch {
    return false;
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}

const available = await reachable();
if (!available) {
  console.log(
    brokers.length === 0
      ? '[worker] Kafka relay suite SKIPPED: no Kafka broker reachable (KAFKA_BROKERS unset)'
      : `[worker] Kafka relay suite SKIPPED: no Kafka broker reachable (KAFKA_BROKERS=${brokers.join(',')})`,
  );
}

(available ? describe : describe.skip)('integration relay on a real Kafka broker', () => {
  let db: TestDatabase;
  let store: EventStore;
  const logger = { info: () => undefined, warn: () => undefined, error: () => undefined };

  beforeAll(async () => {
    db = await createTestDatabase();
    store = await createPostgresEventStore(db);
  });
  afterAll(async () => {
    await store?.close();
    await db?.close();
  });

  it('publishes with the broker acknowledging, one key per aggregate, readable by a plain consumer', async () => {
    const tenant = randomUUID();
    const tagId = randomUUID();
    const created = randomUUID();
    const deleted = randomUUID();
    await store.append(
      streamId('tag', tagId),
      [
        {
          id: created,
          type: 'TagCreated',
          data: { tag_id: tagId, name: '連携', description: '', group_name: null },
          metadata: newEventMetadata(tenant),
        },
        { id: deleted, type: 'TagDeleted', data: { tag_id: tagId }, metadata: newEventMetadata(tenant) },
      ],
      { expectedRevision: 'no_stream' },
    );

    const relay = startIntegrationRelay({ db, store, logger, brokers: brokers.join(','), pollIntervalMs: 20 });
    const kafka = new Kafka({ brokers, clientId: 'renkei-test-consumer', logLevel: logLevel.NOTHING });
    const consumer = kafka.consumer({ groupId: `renkei-test-${randomUUID()}` });
    const seen: { key: string; event: IntegrationEventV1; partition: number }[] = [];
    try {
      await consumer.connect();
      await consumer.subscribe({ topic: 'renkei.tag.v1', fromBeginning: true });
      await consumer.run({
        eachMessage: async ({ message, partition }) => {
          const event = JSON.parse(message.value!.toString()) as IntegrationEventV1;
          if (event.tenant_id === tenant) seen.push({ key: message.key!.toString(), event, partition });
        },
      });
      const deadline = Date.now() + 60_000;
      while (new Set(seen.map((s) => s.event.event_id)).size < 2) {
        if (Date.now() > deadline) throw new Error('events did not arrive on renkei.tag.v1');
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    } finally {
      await consumer.disconnect().catch(() => undefined);
      await relay.stop();
    }

    const unique = [...new Map(seen.map((s) => [s.event.event_id, s])).values()];
    expect(unique.map((s) => s.event.type)).toEqual(['TagCreated', 'TagDeleted']);
    expect(unique.every((s) => s.key === tagId && s.partition === unique[0]!.partition)).toBe(true);
    expect(unique[0]!.event).toMatchObject({ event_id: created, tenant_id: tenant, data: { name: '連携' } });
  });
});
