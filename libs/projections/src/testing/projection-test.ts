import { randomBytes, randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, expect } from 'vitest';
import { createTestDatabase, type TestDatabase } from '@renkei/db';
import type { RecordedEvent } from '@renkei/event-store';
import { physicalTables, type Projection, type ProjectionTables } from '../projection.ts';

/** An event as a test names it; the rest of the recorded event is filled in. */
export interface GivenEvent {
  /** Default: a fresh uuid. For a projection that keeps an event's id (an event answering another). */
  readonly id?: string;
  readonly type: string;
  readonly data: unknown;
  /** Default: the test's `tenantId`. */
  readonly tenant?: string;
  /** Default: one stream per event type and tenant. Revisions count up per stream. */
  readonly stream?: string;
  readonly accountId?: string | null;
  readonly schemaVersion?: number;
  readonly at?: Date;
}

export interface ProjectionScenario<T extends string> {
  /** The build's physical tables (`rm.<table>_<suffix>`), fresh for this scenario. */
  readonly tables: ProjectionTables<T>;
  /** Asserts `table` holds exactly `rows` (in any order), comparing the columns the rows name. */
  thenRows(table: T, rows: readonly Record<string, unknown>[]): Promise<void>;
  /** Asserts that applying the events fails, with a message matching `message`. */
  thenFails(message: RegExp | string): Promise<void>;
}

export interface ProjectionTest<T extends string> {
  /** The tenant of events that name none. */
  readonly tenantId: string;
  /**
   * The projection's `setup` in fresh tables, then `handle` on each batch in its own transaction, as
   * the engine runs them. `given([e1, e2])` is one batch; `given([e1], [e2])` two.
   */
  given(...batches: readonly (readonly GivenEvent[])[]): ProjectionScenario<T>;
}

/**
 * Given events, then rows: a projection test against a fresh Postgres database for the test file
 * (created before its tests, dropped after them). Call it at the top level of a `*.int.test.ts`.
 */
export function projectionTest<T extends string>(projection: Projection<T>): ProjectionTest<T> {
  let db: TestDatabase | undefined;
  beforeAll(async () => {
    db = await createTestDatabase({ poolMax: 2 });
    await sql`CREATE SCHEMA IF NOT EXISTS rm`.execute(db.kysely);
  });
  afterAll(async () => {
    await db?.close();
  });
  const tenantId = randomUUID();
  let position = 0n;

  return {
    tenantId,
    given(...batches) {
      const t = physicalTables(projection, `t${randomBytes(4).toString('hex')}`);
      const revisions = new Map<string, number>();
      const record = (e: GivenEvent): RecordedEvent => {
        const tenant = e.tenant ?? tenantId;
        const stream = e.stream ?? `${e.type}-${tenant}`;
        const revision = (revisions.get(stream) ?? -1) + 1;
        revisions.set(stream, revision);
        position += 1n;
        return {
          id: e.id ?? randomUUID(),
          stream,
          revision,
          position: { primary: position, secondary: position },
          type: e.type,
          data: e.data,
          metadata: {
            tenant_id: tenant,
            account_id: e.accountId ?? null,
            correlation_id: randomUUID(),
            causation_id: null,
            schema_version: e.schemaVersion ?? 1,
          },
          created_at: e.at ?? new Date(),
        };
      };
      const recorded = batches.map((batch) => batch.map(record));
      let applied: Promise<void> | undefined;
      const apply = () => {
        const database = db;
        if (!database) throw new Error('projectionTest: call it at the top level of the test file');
        applied ??= (async () => {
          await database.kysely.transaction().execute((trx) => projection.setup(trx, t));
          for (const batch of recorded)
            await database.kysely.transaction().execute((trx) => projection.handle(trx, batch, t));
        })();
        return { database, applied };
      };
      return {
        tables: t,
        async thenRows(table, rows) {
          const { database, applied } = apply();
          await applied;
          const columns = [...new Set(rows.flatMap((r) => Object.keys(r)))];
          const { rows: actual } = await sql<Record<string, unknown>>`
            SELECT ${columns.length > 0 ? sql.join(columns.map((c) => sql.ref(c))) : sql`*`}
              FROM ${sql.table(t[table])}`.execute(database.kysely);
          expect(sortRows(actual), `rows of ${table}`).toEqual(sortRows(rows));
        },
        async thenFails(message) {
          await expect(apply().applied).rejects.toThrow(message);
        },
      };
    },
  };
}

const sortRows = (rows: readonly Record<string, unknown>[]) =>
  [...rows].sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1));
