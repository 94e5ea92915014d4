import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { createKafkaProducer } from './kafka-producer.ts';

/** A port on which nothing listens: bind one, note it, close it. */
async function deadPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const message = { topic: 'renkei.tag.v1', key: 'k', value: '{}', headers: {} };

describe('Kafka producer without a reachable broker', () => {
  it('fails the send (so the relay keeps its checkpoint) instead of hanging, and says why', async () => {
    const warnings: string[] = [];
    const logger = { info: () => {}, warn: (_: object, m?: string) => warnings.push(m ?? ''), error: () => {} };
    const producer = createKafkaProducer({ brokers: [`127.0.0.1:${await deadPort()}`], logger, retries: 1 });
    await expect(producer.publish([message])).rejects.toThrow(/ECONNREFUSED/);
    // The next batch tries a fresh connection rather than a dead producer.
    await expect(producer.publish([message])).rejects.toThrow(/ECONNREFUSED/);
    await producer.close();
    await expect(producer.publish([message])).rejects.toThrow(/closed/);
    expect(warnings.some((w) => w.includes('ECONNREFUSED'))).toBe(true);
    expect(warnings.some((w) => w.startsWith('Limiting retries'))).toBe(false);
  });

  it('close does not wait for a connection attempt in progress', async () => {
    const logger = { info: () => {}, warn: () => {}, error: () => {} };
    const producer = createKafkaProducer({ brokers: [`127.0.0.1:${await deadPort()}`], logger, retries: 20 });
    const sending = producer.publish([message]);
    sending.catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const started = Date.now();
    await producer.close();
    expect(Date.now() - started).toBeLessThan(1_000);
    await expect(sending).rejects.toThrow();
  }, 10_000);
});
