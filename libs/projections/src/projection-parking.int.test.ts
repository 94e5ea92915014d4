import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '@renkei/db';
import {
  createPostgresEventStore,
  newEventMetadata,
  streamId,
  type EventStore,
  type Position,
} from '@renkei/event-store';
import { createProjectionEngine, isTransient } from './projection-engine.ts';
import { defineProjection } from './projection.ts';
import { catchUpProjections, startProjections } from './projection-runner.ts';
import { projectionStatus, requestRebuild, waitForPosition } from './projection-status.ts';

/**
 * Stores each event's `day` in a date column, like the CRM projection stores label dates: a day
 * Postgres cannot store (year 0000) makes the handler fail, as an accepted command once could.
 */
const datedProjection = defineProjection({
  name: 'dated_days',
  version: 1,
  eventTypes: ['DayNoted'],
  tables: ['dated_days'],
  async setup(trx, t) {
    await sql`
      CREATE TABLE ${sql.table(t.dated_days)} (
        event_id uuid PRIMARY KEY, tenant_id uuid NOT NULL, day date NOT NULL
      )`.execute(trx);
  },
  async handle(trx, events, t) {
    await sql`
      INSERT INTO ${sql.table(t.dated_days)} (event_id, tenant_id, day)
      SELECT * FROM unnest(${sql.val(events.map((e) => e.id))}::uuid[],
                           ${sql.val(events.map((e) => e.metadata.tenant_id))}::uuid[],
                           ${sql.val(events.map((e) => (e.data as { day: string }).day))}::date[])
      ON CONFLICT DO NOTHING`.execute(trx);
  },
});

describe('a projection that meets an event it cannot apply', () => {
  let db: TestDatabase;
  let store: EventStore;
  const tenantA = randomUUID();
  const tenantB = randomUUID();

  async function note(tenant: string, day: string): Promise<Position> {
    const result = await store.append(
      streamId('day', randomUUID()),
      [{ type: 'DayNoted', data: { day }, metadata: newEventMetadata(tenant) }],
      { expectedRevision: 'no_stream' },
    );
    return result.position;
  }

  async function days(tenant: string): Promise<string[]> {
    const { rows } = await sql<{ day: string }>`
      SELECT to_char(day, 'YYYY-MM-DD') AS day FROM rm.dated_days WHERE tenant_id = ${tenant} ORDER BY day`.execute(
      db.kysely,
    );
    return rows.map((r) => r.day);
  }

  beforeAll(async () => {
    db = await createTestDatabase();
    store = await createPostgresEventStore(db);
  });
  afterAll(async () => {
    await store?.close();
    await db?.close();
  });

  it('parks only that tenant: every other tenant keeps going and read-your-writes still reaches the end', async () => {
    await note(tenantA, '2026-01-01');
    await note(tenantB, '2026-01-02');
    await note(tenantA, '0000-01-01');
    await note(tenantB, '2026-01-03');
    await note(tenantA, '2026-01-04');
    const last = await note(tenantB, '2026-01-05');

    const running = startProjections({ db, store, projections: [datedProjection], pollIntervalMs: 5 });
    try {
      expect(await waitForPosition(db, [datedProjection.name], last, 20_000)).toBe(true);
    } finally {
      await running.stop();
    }

    expect(await days(tenantB)).toEqual(['2026-01-02', '2026-01-03', '2026-01-05']);
    // Tenant A keeps what came before the poison; what came after is skipped, not applied on top of a gap.
    expect(await days(tenantA)).toEqual(['2026-01-01']);

    const [status] = await projectionStatus(db, store);
    expect(status?.parked_tenants).toEqual([
      expect.objectContaining({
        tenant_id: tenantA,
        event_type: 'DayNoted',
        skipped_events: 1,
        error: expect.stringContaining('out of range'),
      }),
    ]);
    expect(status?.last_error).toBeNull();
  });

  it('skips the parked tenant in later batches and counts what it skipped', async () => {
    await note(tenantA, '2026-02-01');
    const last = await note(tenantB, '2026-02-02');
    await catchUpProjections({ db, store, projections: [datedProjection], until: last });
    expect(await days(tenantB)).toContain('2026-02-02');
    expect(await days(tenantA)).toEqual(['2026-01-01']);
    const [status] = await projectionStatus(db, store);
    expect(status?.parked_tenants[0]?.skipped_events).toBe(2);
  });

  it('a rebuild starts without the parking: the tenant is tried again from the beginning', async () => {
    await requestRebuild(db, datedProjection.name);
    const last = await note(tenantB, '2026-03-01');
    // The request is noticed at most a second after it was filed.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    await catchUpProjections({ db, store, projections: [datedProjection], until: last });
    const statuses = await projectionStatus(db, store);
    expect(statuses).toHaveLength(1);
    expect(statuses[0]?.suffix).toBe('v1_r1');
    // The event still cannot be applied, so the new build parks the tenant again, on its own suffix.
    expect(statuses[0]?.parked_tenants).toEqual([expect.objectContaining({ tenant_id: tenantA, skipped_events: 2 })]);
    const { rows } = await sql<{ suffix: string }>`
      SELECT suffix FROM rm.projection_parked_tenants WHERE name = ${datedProjection.name}`.execute(db.kysely);
    expect(rows.map((r) => r.suffix)).toEqual(['v1_r1']);
    expect(await days(tenantB)).toContain('2026-03-01');
  });

  it('a transient failure parks nobody: the batch is retried as a whole', async () => {
    const flaky = defineProjection({
      name: 'flaky_days',
      version: 1,
      eventTypes: ['DayNoted'],
      tables: ['flaky_days'],
      async setup(trx, t) {
        await sql`CREATE TABLE ${sql.table(t.flaky_days)} (event_id uuid PRIMARY KEY)`.execute(trx);
      },
      async handle() {
        throw Object.assign(new Error('could not serialize access'), { code: '40001' });
      },
    });
    await note(tenantB, '2026-04-01');
    const engine = createProjectionEngine({ db, store });
    await engine.step(flaky); // creates the build
    await expect(async () => {
      while (await engine.step(flaky)) {
        // until it throws
      }
    }).rejects.toThrow('could not serialize access');
    const { rows } = await sql`
      SELECT 1 FROM rm.projection_parked_tenants WHERE name = 'flaky_days'`.execute(db.kysely);
    expect(rows).toHaveLength(0);
  });
});

describe('isTransient', () => {
  it('tells failures of the moment from failures of the data', () => {
    expect(isTransient(Object.assign(new Error('x'), { code: '40P01' }))).toBe(true);
    expect(isTransient(Object.assign(new Error('x'), { code: '57014' }))).toBe(true);
    expect(isTransient(Object.assign(new Error('x'), { code: '08006' }))).toBe(true);
    expect(isTransient(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(isTransient(Object.assign(new Error('date/time field value out of range'), { code: '22008' }))).toBe(false);
    expect(isTransient(Object.assign(new Error('duplicate key'), { code: '23505' }))).toBe(false);
    expect(isTransient(new TypeError("Cannot read properties of undefined (reading 'id')"))).toBe(false);
  });
});
