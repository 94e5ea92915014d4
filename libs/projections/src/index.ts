export { defineProjection, physicalTables, type Projection, type ProjectionTables } from './projection.ts';
export { startProjections, catchUpProjections, type StartProjectionsOptions } from './projection-runner.ts';
export {
  waitForPosition,
  projectionStatus,
  reactorStatus,
  requestRebuild,
  type ParkedTenant,
  type ProjectionStatus,
  type ReactorStatus,
} from './projection-status.ts';
export { migrateProjections } from './projections.migrations.ts';
export { repeatUntilAborted, sleepUnlessAborted } from './abortable-sleep.ts';
export type { ProjectionLogger } from './projection-engine.ts';
export { defineReactor, recordParkedEvent, startReactors, type Reactor, type ReactorContext } from './reactor.ts';
