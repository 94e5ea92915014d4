import type { Transaction } from 'kysely';
import type { RecordedEvent } from '@renkei/event-store';

/** Logical table name → physical versioned table, schema-qualified (`tags` → `rm.tags_v3`). */
export type ProjectionTables<T extends string = string> = Readonly<Record<T, string>>;

/**
 * A read model fed by events. `setup` creates the physical tables named in `t`; `handle` applies one
 * batch (in global order) inside the transaction that also advances the checkpoint, so it must
 * write with set-based statements (one multi-row `INSERT … ON CONFLICT` per batch, not per event)
 * and must not touch any other connection. Reads go through the view `rm.<table>`, which points at
 * the live version's tables.
 */
export interface Projection<T extends string = string> {
  readonly name: string;
  /** Bump to rebuild into fresh tables from position zero; the old version serves until caught up. */
  readonly version: number;
  readonly eventTypes: readonly string[];
  readonly tables: readonly T[];
  /**
   * The most events one batch takes, below the runner's. For projections whose events each carry
   * thousands of rows (an import's chunks): a batch is folded in memory, and 1,000 chunks of 2,000
   * referrals filled a 4 GB heap in a rebuild of 5,000,000.
   */
  readonly maxBatchEvents?: number;
  setup(trx: Transaction<unknown>, t: ProjectionTables<T>): Promise<void>;
  handle(trx: Transaction<unknown>, events: RecordedEvent[], t: ProjectionTables<T>): Promise<void>;
}

const NAME = /^[a-z][a-z0-9_]{0,40}$/;

/** Validates and returns a projection definition (names become SQL identifiers). */
export function defineProjection<const T extends string>(projection: Projection<T>): Projection<T> {
  if (!NAME.test(projection.name)) throw new Error(`Projection name "${projection.name}" must be snake_case`);
  if (!Number.isInteger(projection.version) || projection.version < 1) {
    throw new Error(`Projection ${projection.name}: version must be a positive integer`);
  }
  if (projection.tables.length === 0) throw new Error(`Projection ${projection.name}: no tables`);
  for (const table of projection.tables) {
    if (!NAME.test(table)) throw new Error(`Projection ${projection.name}: table "${table}" must be snake_case`);
  }
  if (projection.eventTypes.length === 0) throw new Error(`Projection ${projection.name}: no event types`);
  if (
    projection.maxBatchEvents !== undefined &&
    !(Number.isInteger(projection.maxBatchEvents) && projection.maxBatchEvents >= 1)
  )
    throw new Error(`Projection ${projection.name}: maxBatchEvents must be a positive integer`);
  return projection;
}

/** The physical tables of one build of a projection (`v3`, or `v3_r1` for a rebuild of the same version). */
export function physicalTables<T extends string>(projection: Projection<T>, suffix: string): ProjectionTables<T> {
  const t = {} as Record<T, string>;
  for (const table of projection.tables) t[table] = `rm.${table}_${suffix}`;
  return t;
}
