import type { Database } from '@renkei/db';
import type { EventStore } from '@renkei/event-store';
import { defineReactor, startReactors, type ProjectionLogger, type Reactor } from '@renkei/projections';
import { integrationEventTypes, integrationTopics, toIntegrationMessages } from './integration-events.ts';
import { createKafkaProducer, parseBrokers, type IntegrationProducer } from './kafka-producer.ts';

/** Its checkpoint row in `rm.reactor_checkpoints`. */
export const integrationRelayName = 'integration_kafka_relay';

/**
 * The outbox relay: the event store is the outbox. It is a reactor, so it reads from its own durable
 * checkpoint and the checkpoint advances only after `handle` returned, i.e. after the broker
 * acknowledged the whole batch; a failure (broker down, timeout) repeats the same batch with back-off
 * and a restart resumes from the checkpoint. It starts at the beginning of the store, so a system
 * connected later can build its state from the topics.
 */
export function integrationRelay(producer: IntegrationProducer): Reactor {
  return defineReactor({
    name: integrationRelayName,
    eventTypes: integrationEventTypes,
    batchSize: 500,
    startAt: 'beginning',
    async handle(events) {
      const messages = events.flatMap(toIntegrationMessages);
      await producer.publish(messages);
    },
  });
}

export interface IntegrationRelayOptions {
  db: Database;
  store: EventStore;
  logger: ProjectionLogger;
  /** `KAFKA_BROKERS`: comma-separated host:port; empty or absent keeps the relay off. */
  brokers: string | null | undefined;
  /** Replaces the Kafka producer (tests). */
  producer?: IntegrationProducer;
  pollIntervalMs?: number;
  /** How long `stop` lets a batch in flight finish before cutting the broker connection. */
  stopGraceMs?: number;
}

/** Starts the relay when brokers are configured; otherwise logs once that it is off. */
export function startIntegrationRelay(options: IntegrationRelayOptions): { running: boolean; stop(): Promise<void> } {
  const { logger } = options;
  const brokers = parseBrokers(options.brokers);
  if (brokers.length === 0 && !options.producer) {
    logger.info({}, 'Kafka integration relay off: KAFKA_BROKERS is not set');
    return { running: false, stop: async () => undefined };
  }
  const producer = options.producer ?? createKafkaProducer({ brokers, logger });
  const reactors = startReactors({
    db: options.db,
    store: options.store,
    reactors: [integrationRelay(producer)],
    logger,
    pollIntervalMs: options.pollIntervalMs,
  });
  logger.info({ brokers, topics: integrationTopics }, 'Kafka integration relay started');
  return {
    running: true,
    async stop() {
      const stopping = reactors.stop();
      // A send stuck on an unreachable broker would hold shutdown for the client's whole retry
      // budget; the unacknowledged batch is simply sent again after the restart.
      const timer = setTimeout(() => void producer.close(), options.stopGraceMs ?? 5_000);
      try {
        await stopping;
      } finally {
        clearTimeout(timer);
        await producer.close();
      }
    },
  };
}
