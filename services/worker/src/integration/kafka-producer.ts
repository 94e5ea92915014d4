import { Kafka, logLevel, Partitioners, type Producer } from 'kafkajs';
import type { ProjectionLogger } from '@renkei/projections';
import type { IntegrationMessage } from './integration-events.ts';

/** Where the relay hands its batches; resolves only once the broker acknowledged every message. */
export interface IntegrationProducer {
  publish(messages: readonly IntegrationMessage[]): Promise<void>;
  close(): Promise<void>;
}

/**
 * `KAFKA_BROKERS` → broker list: comma-separated `host:port` (IPv6 as `[addr]:port`). Empty means
 * the relay is off; anything malformed throws, so a typo stops the worker at start instead of
 * leaving a relay that retries a broker that cannot exist.
 */
export function parseBrokers(value: string | null | undefined): string[] {
  const brokers = (value ?? '')
    .split(',')
    .map((b) => b.trim())
    .filter(Boolean);
  for (const broker of brokers) {
    const m = /^(?:\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/.exec(broker);
    if (!m || Number(m[1]) < 1 || Number(m[1]) > 65535)
      throw new Error(`KAFKA_BROKERS: "${broker}" is not host:port (comma-separate several brokers)`);
  }
  return brokers;
}

export interface KafkaProducerOptions {
  brokers: readonly string[];
  logger: ProjectionLogger;
  clientId?: string;
  /** The client's own retries of one send before the relay's back-off takes over (default 5). */
  retries?: number;
}

/**
 * An idempotent kafkajs producer (acks from all in-sync replicas, one request in flight, so the
 * broker drops the client's own retries and keeps per-partition order). The partitioner is the
 * Java client's murmur2, so a key lands on the same partition whichever client wrote it.
 *
 * A batch that fails after the client's own retries is reported to the relay, which retries it with
 * back-off; the producer is then rebuilt (a fresh producer id), because kafkajs' idempotent sequence
 * numbers are not trustworthy after a failed send. A message the broker stored before the failure
 * is then written again: delivery is at-least-once, consumers dedupe on `event_id`.
 */
export function createKafkaProducer(options: KafkaProducerOptions): IntegrationProducer {
  const { logger } = options;
  // Bounded (connecting and sending alike), so a dead broker surfaces as an error the relay records
  // and backs off from.
  const retry = { retries: options.retries ?? 5, initialRetryTime: 300, maxRetryTime: 5_000 };
  const kafka = new Kafka({
    clientId: options.clientId ?? 'renkei-worker',
    brokers: [...options.brokers],
    retry,
    logLevel: logLevel.WARN,
    // The relay logs each failed batch as an error (and records it on its checkpoint); the client's
    // own lines about single attempts are warnings. Its notice that bounded retries weaken
    // exactly-once is expected: delivery is at-least-once by design (see above).
    logCreator:
      () =>
      ({ level, namespace, log }) => {
        const { message, ...extra } = log;
        const entry = { kafka: namespace, ...extra };
        if (level === logLevel.ERROR || level === logLevel.WARN) {
          if (message.startsWith('Limiting retries for the idempotent producer')) return;
          logger.warn(entry, message);
        } else logger.info(entry, message);
      },
  });
  /** The current producer, connected or connecting (kept so `close` can cut a connect short). */
  let producer: Producer | null = null;
  let ready: Promise<void> | null = null;
  let closed = false;
  // kafkajs keeps retrying a connect or a send after disconnect(); waits race this instead, so
  // `close` (and with it worker shutdown) never waits out the client's retry budget.
  let signalClosed!: (error: Error) => void;
  const closedSignal = new Promise<never>((_, reject) => {
    signalClosed = reject;
  });
  closedSignal.catch(() => undefined);
  const unlessClosed = <T>(work: Promise<T>): Promise<T> => {
    work.catch(() => undefined);
    return Promise.race([work, closedSignal]);
  };

  async function connected(): Promise<Producer> {
    if (!producer) {
      const p = kafka.producer({
        idempotent: true,
        maxInFlightRequests: 1,
        createPartitioner: Partitioners.DefaultPartitioner,
        retry,
      });
      producer = p;
      ready = p.connect().then(async () => {
        // Connected after `close` or a failure dropped it: nobody else will disconnect it.
        if (producer !== p) {
          await p.disconnect().catch(() => undefined);
          throw new Error('Kafka producer closed');
        }
      });
    }
    const p = producer;
    try {
      await unlessClosed(ready!);
    } catch (error) {
      if (producer === p) await drop();
      throw error;
    }
    return p;
  }

  async function drop(): Promise<void> {
    const p = producer;
    producer = null;
    ready = null;
    await p?.disconnect().catch(() => undefined);
  }

  return {
    async publish(messages) {
      if (closed) throw new Error('Kafka producer closed');
      if (messages.length === 0) return;
      const byTopic = new Map<string, IntegrationMessage[]>();
      for (const m of messages) {
        const list = byTopic.get(m.topic) ?? [];
        list.push(m);
        byTopic.set(m.topic, list);
      }
      const p = await connected();
      try {
        await unlessClosed(
          p.sendBatch({
            acks: -1,
            topicMessages: [...byTopic].map(([topic, list]) => ({
              topic,
              messages: list.map((m) => ({ key: m.key, value: m.value, headers: m.headers })),
            })),
          }),
        );
      } catch (error) {
        await drop();
        throw error;
      }
    },
    async close() {
      closed = true;
      signalClosed(new Error('Kafka producer closed'));
      await drop();
    },
  };
}
