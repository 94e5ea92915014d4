import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '@renkei/db';
import type { RecordedEvent } from '@renkei/event-store';
import { physicalTables } from '@renkei/projections';
import { tenantSettingsProjection as projection } from './tenant-settings.projection.ts';

let db: TestDatabase;
let position = 0n;
const revisions = new Map<string, number>();
const t = physicalTables(projection, 'test');

const base = (tenantId: string) => ({
  tenant_id: tenantId,
  slug: `t-${tenantId.slice(0, 8)}`,
  name: 'テナント',
  plan: 'starter',
  features: [],
  limits: { max_account_count: null, max_tag_count: null },
});

function event(tenantId: string, type: 'TenantRegistered' | 'TenantSettingsChanged', data: object): RecordedEvent {
  const stream = `tenant-${tenantId}`;
  const revision = (revisions.get(stream) ?? -1) + 1;
  revisions.set(stream, revision);
  position += 1n;
  return {
    id: randomUUID(),
    stream,
    revision,
    position: { primary: position, secondary: position },
    type,
    data: { ...base(tenantId), ...data },
    metadata: {
      tenant_id: tenantId,
      account_id: null,
      correlation_id: randomUUID(),
      causation_id: null,
      schema_version: 1,
    },
    created_at: new Date(),
  };
}
const changed = (tenantId: string, data: object) =>
  event(tenantId, 'TenantSettingsChanged', { enabled_phase: false, medical_institution_id: null, ...data });

const handle = (events: RecordedEvent[]) => db.kysely.transaction().execute((trx) => projection.handle(trx, events, t));
async function settings(tenantId: string) {
  const { rows } = await sql<{
    enabled_phase: boolean;
    medical_institution_id: string | null;
    group_medical_institution_ids: string[];
    version: number;
  }>`SELECT enabled_phase, medical_institution_id, group_medical_institution_ids, version
       FROM ${sql.table(t.tenant_settings)} WHERE tenant_id = ${tenantId}`.execute(db.kysely);
  return rows[0];
}

beforeAll(async () => {
  db = await createTestDatabase();
  await sql`CREATE SCHEMA IF NOT EXISTS rm`.execute(db.kysely);
  await db.kysely.transaction().execute((trx) => projection.setup(trx, t));
});
afterAll(async () => {
  await db?.close();
});

describe('tenant_settings projection', () => {
  it('keeps the last settings of each tenant, within and across batches', async () => {
    const [a, b] = [randomUUID(), randomUUID()];
    const [x, y] = [randomUUID(), randomUUID()];
    await handle([
      event(a, 'TenantRegistered', { enabled_phase: true }),
      event(b, 'TenantRegistered', {}),
      changed(a, { enabled_phase: true, group_medical_institution_ids: [x, y], medical_institution_id: x }),
    ]);
    expect(await settings(a)).toEqual({
      enabled_phase: true,
      medical_institution_id: x,
      group_medical_institution_ids: [x, y],
      version: 1,
    });
    // Registered before registrations carried the flag: phases off, no group.
    expect(await settings(b)).toEqual({
      enabled_phase: false,
      medical_institution_id: null,
      group_medical_institution_ids: [],
      version: 0,
    });
    await handle([changed(a, { group_medical_institution_ids: [y] }), changed(b, { enabled_phase: true })]);
    expect(await settings(a)).toMatchObject({ enabled_phase: false, group_medical_institution_ids: [y], version: 2 });
    expect(await settings(b)).toMatchObject({ enabled_phase: true, group_medical_institution_ids: [] });
  });

  it('reads a settings change stored before group ids existed as no group', async () => {
    const tenant = randomUUID();
    await handle([event(tenant, 'TenantRegistered', {}), changed(tenant, { enabled_phase: true })]);
    expect(await settings(tenant)).toMatchObject({ enabled_phase: true, group_medical_institution_ids: [] });
  });

  it('ignores a batch it has already applied (replay after a crash)', async () => {
    const tenant = randomUUID();
    const group = randomUUID();
    const first = [event(tenant, 'TenantRegistered', {}), changed(tenant, { group_medical_institution_ids: [group] })];
    const second = [changed(tenant, { group_medical_institution_ids: [] })];
    await handle(first);
    await handle(second);
    await handle(first);
    expect(await settings(tenant)).toMatchObject({ group_medical_institution_ids: [], version: 2 });
  });
});
