import type { Database } from '@renkei/db';
import type { EventStore } from '@renkei/event-store';
import {
  startProjections,
  startReactors,
  type Projection,
  type ProjectionLogger,
  type Reactor,
} from '@renkei/projections';

export interface WorkerOptions {
  db: Database;
  store: EventStore;
  /** Read models to maintain; query-side modules own the definitions, the composer passes them in. */
  projections: readonly Projection<any>[];
  /** Side-effect handlers (imports, mails, alerts), each with its own durable checkpoint. */
  reactors?: readonly Reactor[];
  logger: ProjectionLogger;
  batchSize?: number;
}

/** Runs projections and reactors until stopped. */
export async function startWorker(options: WorkerOptions): Promise<{ stop(): Promise<void> }> {
  const projections = startProjections({
    db: options.db,
    store: options.store,
    projections: options.projections,
    logger: options.logger,
    batchSize: options.batchSize,
  });
  const reactors = startReactors({
    db: options.db,
    store: options.store,
    reactors: options.reactors ?? [],
    logger: options.logger,
  });
  options.logger.info(
    { projections: options.projections.map((p) => `${p.name}@${p.version}`), reactors: options.reactors?.length ?? 0 },
    'worker started',
  );
  return {
    async stop() {
      await Promise.all([projections.stop(), reactors.stop()]);
      options.logger.info({}, 'worker stopped');
    },
  };
}

export { projections } from './projections.ts';
export { reactors } from './reactors.ts';
