import type { Database } from '@renkei/db';
import type { EventStore } from '@renkei/event-store';
import {
  startProjections,
  startReactors,
  type Projection,
  type ProjectionLogger,
  type Reactor,
} from '@renkei/projections';
import { startIntegrationRelay } from './integration/relay.ts';

export interface WorkerOptions {
  db: Database;
  store: EventStore;
  /** Read models to maintain; query-side modules own the definitions, the composer passes them in. */
  projections: readonly Projection<any>[];
  /** Side-effect handlers (imports, mails, alerts), each with its own durable checkpoint. */
  reactors?: readonly Reactor[];
  logger: ProjectionLogger;
  batchSize?: number;
  /**
   * The wait of caught-up projection and reactor loops (see `StartProjectionsOptions.idlePollIntervalMs`).
   * Default: 500 ms with a store that wakes them at every process's append (`hearsOtherProcesses`), for
   * which the poll is only a safety net; else their own short polls.
   */
  idlePollIntervalMs?: number;
  /**
   * Brokers of the Kafka integration-event relay (comma-separated host:port). Undefined reads
   * KAFKA_BROKERS, so every composer (standalone worker, embedded) gets the relay by configuration
   * alone; null or '' keeps it off.
   */
  kafkaBrokers?: string | null;
}

/**
 * The idle poll of caught-up projection and reactor loops whose store wakes them at every append that
 * concerns them (the embedded system's own appends, or every process's through LISTEN): only a safety net.
 */
export const wokenIdlePollMs = 500;

/** Runs projections, reactors and (when KAFKA_BROKERS is set) the integration-event relay until stopped. */
export async function startWorker(options: WorkerOptions): Promise<{ stop(): Promise<void> }> {
  // At 25–50 ms the caught-up loops made ~600 statements a second on an idle database (docs/decisions.md).
  const idlePollIntervalMs =
    options.idlePollIntervalMs ?? (options.store.hearsOtherProcesses ? wokenIdlePollMs : undefined);
  // First: a malformed KAFKA_BROKERS throws before anything else is running.
  const relay = startIntegrationRelay({
    db: options.db,
    store: options.store,
    logger: options.logger,
    brokers: options.kafkaBrokers === undefined ? process.env.KAFKA_BROKERS : options.kafkaBrokers,
  });
  const projections = startProjections({
    db: options.db,
    store: options.store,
    projections: options.projections,
    logger: options.logger,
    batchSize: options.batchSize,
    idlePollIntervalMs,
  });
  const reactors = startReactors({
    db: options.db,
    store: options.store,
    reactors: options.reactors ?? [],
    logger: options.logger,
    idlePollIntervalMs,
  });
  options.logger.info(
    { projections: options.projections.map((p) => `${p.name}@${p.version}`), reactors: options.reactors?.length ?? 0 },
    'worker started',
  );
  return {
    async stop() {
      await Promise.all([projections.stop(), reactors.stop(), relay.stop()]);
      options.logger.info({}, 'worker stopped');
    },
  };
}

export { projections } from './projections.ts';
export { reactors, workerReactors } from './reactors.ts';
