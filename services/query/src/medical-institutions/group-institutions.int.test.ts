import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import iconv from 'iconv-lite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { defaultResources, featureKeys } from '@renkei/contracts';
import { createTestDatabase, type TestDatabase } from '@renkei/db';
import { createPostgresEventStore, formatPosition, streamId, type EventStore } from '@renkei/event-store';
import { buildInstitutionCode, importInstitutionMaster, institutionIdFromCode } from '@renkei/institution-master';
import { startProjections } from '@renkei/projections';
import { createTestAuth, type TestAuth } from '@renkei/service-kit/testing';
import { buildQueryApp, queryProjections } from '../index.ts';

let db: TestDatabase;
let store: EventStore;
let app: FastifyInstance;
let testAuth: TestAuth;
let projections: { stop(): Promise<void> };

const code = (n: number) =>
  buildInstitutionCode({ prefectureCode: 13, scoreTable: 1, districtNumber: 1, institutionNumber: 2000 + n });
const mi = (n: number) => institutionIdFromCode(code(n));
const masterRow = (n: number, name: string) =>
  [
    code(n),
    name,
    'カナ',
    '100-0001',
    `東京都千代田区千代田${n}-1`,
    '03-0000-0000',
    '医療法人',
    '管理 者',
    '一般病院',
    '100',
    '内科',
    '35.68',
    '139.76',
    '開設',
  ].join(',');

beforeAll(async () => {
  db = await createTestDatabase();
  store = await createPostgresEventStore(db);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'renkei-group-'));
  const file = path.join(dir, 'm.csv');
  fs.writeFileSync(
    file,
    iconv.encode(
      [masterRow(1, 'みなと中央病院'), masterRow(2, 'みなと東クリニック'), masterRow(3, '他院')].join('\r\n'),
      'cp932',
    ),
  );
  expect((await importInstitutionMaster(db, file)).insertedCount).toBe(3);
  fs.rmSync(dir, { recursive: true });
  projections = startProjections({ db, store, projections: queryProjections });
  testAuth = await createTestAuth({ audience: defaultResources.query });
  app = await buildQueryApp({
    db,
    auth: testAuth.auth,
    logger: false,
    rateLimit: false,
    underPressure: false,
    minPositionTimeoutMs: 10_000,
  });
});

afterAll(async () => {
  await app?.close();
  await projections?.stop();
  await store?.close();
  await db?.close();
});

/** Appends a tenant event as the identity service's outbox relay would; answers its X-Position. */
async function publish(tenantId: string, type: 'TenantRegistered' | 'TenantSettingsChanged', data: object) {
  const result = await store.append(
    streamId('tenant', tenantId),
    [
      {
        type,
        data: {
          tenant_id: tenantId,
          slug: `t-${tenantId.slice(0, 8)}`,
          name: 'テナント',
          plan: 'standard202211',
          features: [],
          limits: { max_account_count: null, max_tag_count: null },
          enabled_phase: false,
          ...(type === 'TenantSettingsChanged' ? { medical_institution_id: null } : {}),
          ...data,
        },
        metadata: {
          tenant_id: tenantId,
          account_id: null,
          correlation_id: randomUUID(),
          causation_id: null,
          schema_version: 1,
        },
      },
    ],
    { expectedRevision: 'any' },
  );
  return formatPosition(result.position);
}

async function isGroup(tenantId: string, institutionId: string, minPosition?: string): Promise<boolean> {
  const token = await testAuth.token({ tenantId, features: [...featureKeys] });
  const res = await app.inject({
    method: 'GET',
    url: `/api/medical_institutions/${institutionId}/summary`,
    headers: { authorization: `Bearer ${token}`, ...(minPosition ? { 'x-min-position': minPosition } : {}) },
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().group_medical_institution as boolean;
}

describe('CRM summary: group institution flag', () => {
  it('is true for the tenant’s group institutions only, and never for another tenant’s group', async () => {
    const minato = randomUUID();
    const other = randomUUID();
    await publish(minato, 'TenantRegistered', {});
    await publish(other, 'TenantRegistered', {});
    await publish(other, 'TenantSettingsChanged', { group_medical_institution_ids: [mi(3)] });
    const position = await publish(minato, 'TenantSettingsChanged', {
      group_medical_institution_ids: [mi(1), mi(2)],
    });
    // X-Min-Position waits for the tenant settings read model too.
    expect(await isGroup(minato, mi(1), position)).toBe(true);
    expect(await isGroup(minato, mi(2))).toBe(true);
    expect(await isGroup(minato, mi(3))).toBe(false);
    expect(await isGroup(other, mi(3))).toBe(true);
    expect(await isGroup(other, mi(1))).toBe(false);
    // A tenant identity never published (or with no settings row) has no group.
    expect(await isGroup(randomUUID(), mi(1))).toBe(false);
  });

  it('follows a change of the group, and a settings change stored before group ids existed means no group', async () => {
    const tenant = randomUUID();
    await publish(tenant, 'TenantRegistered', {});
    let position = await publish(tenant, 'TenantSettingsChanged', { group_medical_institution_ids: [mi(1)] });
    expect(await isGroup(tenant, mi(1), position)).toBe(true);
    position = await publish(tenant, 'TenantSettingsChanged', { group_medical_institution_ids: [mi(2)] });
    expect(await isGroup(tenant, mi(1), position)).toBe(false);
    expect(await isGroup(tenant, mi(2))).toBe(true);
    position = await publish(tenant, 'TenantSettingsChanged', { enabled_phase: true });
    expect(await isGroup(tenant, mi(2), position)).toBe(false);
  });
});
