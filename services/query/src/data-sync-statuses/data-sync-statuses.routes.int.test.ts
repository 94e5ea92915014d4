import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { defaultResources, featureKeys, type DataSyncStatuses } from '@renkei/contracts';
import { createTestDatabase, type TestDatabase } from '@renkei/db';
import { createPostgresEventStore, newEventMetadata, streamId, type EventStore } from '@renkei/event-store';
import { generateInstitutionMaster, importInstitutionMaster } from '@renkei/institution-master';
import { catchUpProjections } from '@renkei/projections';
import { createTestAuth, type TestAuth } from '@renkei/service-kit/testing';
import { buildQueryApp, queryProjections } from '../index.ts';

let db: TestDatabase;
let store: EventStore;
let app: FastifyInstance;
let testAuth: TestAuth;
const tenantA = randomUUID();
const tenantB = randomUUID();

async function upload(tenant: string, type: string, filename: string, status: string, minutesAgo: number) {
  await sql`
    INSERT INTO rm.referral_data_imports (tenant_id, id, import_type, filename, status, imported_row_count,
                                          failed_row_count, created_at)
    VALUES (${tenant}, ${randomUUID()}, ${type}, ${filename}, ${status}, 10, 1,
            now() - make_interval(mins => ${minutesAgo}))`.execute(db.kysely);
}

async function statuses(tenantId: string, features: readonly (typeof featureKeys)[number][] = featureKeys) {
  const token = await testAuth.token({ tenantId, features: [...features] });
  return app.inject({ method: 'GET', url: '/api/data_sync_statuses', headers: { authorization: `Bearer ${token}` } });
}

beforeAll(async () => {
  db = await createTestDatabase();
  store = await createPostgresEventStore(db);
  testAuth = await createTestAuth({ audience: defaultResources.query });
  app = await buildQueryApp({ db, store, auth: testAuth.auth, logger: false, rateLimit: false, underPressure: false });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'renkei-sync-status-'));
  await generateInstitutionMaster(path.join(dir, 'm.csv'), { count: 3, seed: 7 });
  await importInstitutionMaster(db, path.join(dir, 'm.csv'));
  fs.rmSync(dir, { recursive: true });
  const { position } = await store.append(
    streamId('tag', randomUUID()),
    [{ type: 'TagCreated', data: { id: randomUUID(), name: '紹介多い' }, metadata: newEventMetadata(tenantA) }],
    { expectedRevision: 'no_stream' },
  );
  await catchUpProjections({ db, store, projections: queryProjections, until: position });
  await upload(tenantA, 'referral', '紹介2026-09.csv', 'completed', 60);
  await upload(tenantA, 'referral', '紹介2026-10.csv', 'failed', 30);
  await upload(tenantA, 'ff1_file', 'FF1_202610.txt', 'processing', 5);
  await upload(tenantB, 'reverse_referral', '逆紹介.csv', 'completed', 10);
  await sql`
    INSERT INTO rm.label_value_imports (tenant_id, id, filename, status, imported_row_count, failed_row_count, created_at)
    VALUES (${tenantA}, ${randomUUID()}, '医師数.csv', 'completed', 40, 0, now())`.execute(db.kysely);
  await sql`
    INSERT INTO rm.communication_imports (tenant_id, id, import_type, filename, status, imported_row_count,
                                          failed_row_count, created_at)
    VALUES (${tenantA}, ${randomUUID()}, 'communication', '活動記録.csv', 'completed', 120, 2,
            now() - interval '20 minutes'),
           (${tenantA}, ${randomUUID()}, 'communication', '活動記録2.csv', 'failed', 3, 1, now() - interval '2 minutes'),
           (${tenantA}, ${randomUUID()}, 'communication_update', '検索結果.csv', 'processing', 0, 0, now()),
           (${tenantB}, ${randomUUID()}, 'communication_update', '他院の検索結果.csv', 'completed', 5, 0, now())`.execute(
    db.kysely,
  );
});

afterAll(async () => {
  await app?.close();
  await store?.close();
  await db?.close();
});

describe('GET /data_sync_statuses', () => {
  it("shows each import type's last import of the caller's tenant only, and when one last completed", async () => {
    const res = await statuses(tenantA);
    expect(res.statusCode).toBe(200);
    const body = res.json<DataSyncStatuses>();
    const of = (type: string) => body.imports.find((i) => i.import_type === type)!;
    expect(body.imports.map((i) => i.import_type)).toEqual([
      'referral',
      'reverse_referral',
      'ff1_file',
      'd_file',
      'outpatient_ef_file',
      'hospital_admission_ef_file',
      'label_values',
      'communication',
      'communication_update',
    ]);
    // The last one failed; the data in is the earlier completed one's.
    expect(of('referral').last).toMatchObject({ filename: '紹介2026-10.csv', status: 'failed' });
    expect(Date.parse(of('referral').last_completed_at!)).toBeLessThan(Date.parse(of('referral').last!.created_at));
    expect(of('ff1_file')).toMatchObject({ last: { status: 'processing' }, last_completed_at: null });
    expect(of('label_values').last).toMatchObject({ filename: '医師数.csv', imported_row_count: 40 });
    // Communication imports: new records and updates from a search export, each its own type.
    expect(of('communication').last).toMatchObject({
      filename: '活動記録2.csv',
      status: 'failed',
      failed_row_count: 1,
    });
    expect(Date.parse(of('communication').last_completed_at!)).toBeLessThan(
      Date.parse(of('communication').last!.created_at),
    );
    expect(of('communication_update')).toMatchObject({
      last: { filename: '検索結果.csv', status: 'processing' },
      last_completed_at: null,
    });
    // Tenant B's reverse-referral upload is not A's.
    expect(of('reverse_referral')).toEqual({ import_type: 'reverse_referral', last: null, last_completed_at: null });
  });

  it("shows the institution master's last sync and the read models caught up", async () => {
    const body = (await statuses(tenantB)).json<DataSyncStatuses>();
    expect(body.institution_master).toMatchObject({ status: 'completed', inserted_count: 3, failed_count: 0 });
    expect(body.projections.length).toBe(new Set(queryProjections.map((p) => p.name)).size);
    expect(body.projections.every((p) => p.status === 'ok' && p.lag_events === 0)).toBe(true);
    expect(body.imports.find((i) => i.import_type === 'reverse_referral')?.last?.filename).toBe('逆紹介.csv');
  });

  it('shows a read model stopped for the tenant whose event it parked, and only for that tenant', async () => {
    const { rows } = await sql<{ name: string; suffix: string }>`
      SELECT name, suffix FROM rm.projection_checkpoints WHERE state = 'live' ORDER BY name LIMIT 1`.execute(db.kysely);
    const parked = rows[0]!;
    await sql`
      INSERT INTO rm.projection_parked_tenants (name, suffix, tenant_id, event_id, event_type, position_primary,
                                                position_secondary, error)
      VALUES (${parked.name}, ${parked.suffix}, ${tenantA}, ${randomUUID()}, 'TagCreated', 1, 0,
              'secret detail of tenant A')`.execute(db.kysely);
    const a = await statuses(tenantA);
    const b = await statuses(tenantB);
    expect(a.json<DataSyncStatuses>().projections.find((p) => p.name === parked.name)?.status).toBe('stopped');
    expect(b.json<DataSyncStatuses>().projections.find((p) => p.name === parked.name)?.status).toBe('ok');
    expect(a.body + b.body).not.toContain('secret detail');
  });

  it('is refused without the data uploads feature', async () => {
    const res = await statuses(
      tenantA,
      featureKeys.filter((f) => f !== 'data_uploads'),
    );
    expect(res.statusCode).toBe(403);
  });
});
