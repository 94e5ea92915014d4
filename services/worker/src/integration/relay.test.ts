import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { newEventMetadata, streamId, type EventStore, type RecordedEvent } from '@renkei/event-store';
import type { Database } from '@renkei/db';
import { parseBrokers } from './kafka-producer.ts';
import { integrationRelay, integrationRelayName, startIntegrationRelay } from './relay.ts';
import { FakeProducer } from './testing/fake-producer.ts';

const tenant = randomUUID();
let position = 0n;
function recorded(type: string, data: Record<string, unknown>): RecordedEvent {
  position += 1n;
  return {
    id: randomUUID(),
    stream: streamId('tag', randomUUID()),
    revision: 0,
    position: { primary: position, secondary: position },
    type,
    data,
    metadata: newEventMetadata(tenant),
    created_at: new Date(),
  };
}
const ctx = { db: {} as Database, store: {} as EventStore };

describe('integration relay handler', () => {
  it('reads only the published types, under its own checkpoint name, from the beginning', () => {
    const relay = integrationRelay(new FakeProducer());
    expect(relay.name).toBe(integrationRelayName);
    expect(relay.startAt).toBe('beginning');
    expect(relay.eventTypes).toContain('TagCreated');
    expect(relay.eventTypes).not.toContain('AccountRegistered');
  });

  it('hands the whole batch to the broker in store order, one message per event', async () => {
    const producer = new FakeProducer();
    const events = [
      recorded('TagCreated', { tag_id: randomUUID(), name: 'a', description: '', group_name: null }),
      recorded('AccountRegistered', { username: 'not published' }),
      recorded('TagDeleted', { tag_id: randomUUID() }),
    ];
    await integrationRelay(producer).handle(events, ctx);
    expect(producer.attempts).toHaveLength(1);
    expect(producer.events().map((e) => e.event_id)).toEqual([events[0]!.id, events[2]!.id]);
  });

  it('fails the batch when the broker does not acknowledge it, so the reactor loop keeps the checkpoint', async () => {
    const producer = new FakeProducer();
    producer.failures.push('refuse');
    const events = [recorded('TagDeleted', { tag_id: randomUUID() })];
    await expect(integrationRelay(producer).handle(events, ctx)).rejects.toThrow(/unreachable/);
    await integrationRelay(producer).handle(events, ctx);
    expect(producer.events().map((e) => e.event_id)).toEqual([events[0]!.id]);
  });
});

describe('KAFKA_BROKERS', () => {
  it('is a comma-separated host:port list', () => {
    expect(parseBrokers(undefined)).toEqual([]);
    expect(parseBrokers(' ')).toEqual([]);
    expect(parseBrokers('kafka:9092')).toEqual(['kafka:9092']);
    expect(parseBrokers('k1.example.jp:9092, 10.0.0.2:9093,[::1]:9094')).toEqual([
      'k1.example.jp:9092',
      '10.0.0.2:9093',
      '[::1]:9094',
    ]);
  });

  it('rejects what cannot be a broker address', () => {
    for (const bad of ['kafka', 'kafka:', 'kafka:0', 'kafka:70000', 'PLAINTEXT://kafka:9092', 'a b:1'])
      expect(() => parseBrokers(bad), bad).toThrow(/KAFKA_BROKERS/);
  });

  it('unset: the relay does not start and says so once', async () => {
    const logged: string[] = [];
    const logger = { info: (_: object, m?: string) => logged.push(m ?? ''), warn: () => {}, error: () => {} };
    const relay = startIntegrationRelay({ ...ctx, logger, brokers: undefined });
    expect(relay.running).toBe(false);
    await relay.stop();
    expect(logged).toEqual(['Kafka integration relay off: KAFKA_BROKERS is not set']);
  });
});
