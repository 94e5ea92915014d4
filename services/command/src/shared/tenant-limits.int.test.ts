import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { featureKeys } from '@renkei/contracts';
import { createTestDatabase, type TestDatabase } from '@renkei/db';
import { createPostgresEventStore, newEventMetadata, streamId, type EventStore } from '@renkei/event-store';
import { createTenantLimitsCache, type TenantLimitsCache } from './tenant-limits.ts';

let db: TestDatabase;
let store: EventStore;
let cache: TenantLimitsCache;

beforeAll(async () => {
  db = await createTestDatabase();
  store = await createPostgresEventStore(db);
  cache = await createTenantLimitsCache(store, { pollIntervalMs: 20 });
});

afterAll(async () => {
  await cache?.close();
  await store?.close();
  await db?.close();
});

const settings = (tenantId: string, maxTagCount: number | null) => ({
  tenant_id: tenantId,
  slug: 's',
  name: '病院',
  plan: 'basic',
  features: [...featureKeys],
  limits: { max_account_count: null, max_tag_count: maxTagCount },
});

async function publish(tenantId: string, type: 'TenantRegistered' | 'TenantSettingsChanged', maxTagCount: number) {
  const data =
    type === 'TenantRegistered'
      ? settings(tenantId, maxTagCount)
      : { ...settings(tenantId, maxTagCount), enabled_phase: false, medical_institution_id: null };
  await store.append(streamId('tenant', tenantId), [{ type, data, metadata: newEventMetadata(tenantId) }], {
    expectedRevision: 'any',
  });
}

async function eventually(check: () => Promise<boolean>, timeoutMs = 5_000) {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('condition not reached');
    await new Promise((r) => setTimeout(r, 10));
  }
}

it('answers null for a tenant identity never published, and its limits once it is', async () => {
  const tenantId = randomUUID();
  expect(await cache.get(tenantId)).toBeNull();
  await publish(tenantId, 'TenantRegistered', 3);
  await eventually(async () => (await cache.get(tenantId))?.max_tag_count === 3);
});

it('serves a cached entry without reading the stream, and drops it when the tenant settings change', async () => {
  const tenantId = randomUUID();
  await publish(tenantId, 'TenantRegistered', 2);
  expect((await cache.get(tenantId))?.max_tag_count).toBe(2);

  let reads = 0;
  const readStream = store.readStream;
  store.readStream = (...args) => {
    reads++;
    return readStream(...args);
  };
  try {
    for (let i = 0; i < 20; i++) expect((await cache.get(tenantId))?.max_tag_count).toBe(2);
    // The follower meets the registration the entry was read with (a few polls later): no re-read.
    await new Promise((resolve) => setTimeout(resolve, 200));
    for (let i = 0; i < 20; i++) expect((await cache.get(tenantId))?.max_tag_count).toBe(2);
    expect(reads).toBe(0);
    await publish(tenantId, 'TenantSettingsChanged', 10);
    await eventually(async () => (await cache.get(tenantId))?.max_tag_count === 10);
    expect(reads).toBeGreaterThan(0);
  } finally {
    store.readStream = readStream;
  }
});

it('keeps an entry whose load was under way when the follower delivered the event it read', async () => {
  const tenantId = randomUUID();
  await publish(tenantId, 'TenantRegistered', 4);
  let reads = 0;
  const readStream = store.readStream;
  // A load slower than many polls: the follower delivers the registration while it is under way.
  store.readStream = async (...args) => {
    reads++;
    await new Promise((resolve) => setTimeout(resolve, 300));
    return readStream(...args);
  };
  try {
    expect((await cache.get(tenantId))?.max_tag_count).toBe(4);
    expect(reads).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 100));
    for (let i = 0; i < 5; i++) expect((await cache.get(tenantId))?.max_tag_count).toBe(4);
    expect(reads).toBe(1);
  } finally {
    store.readStream = readStream;
  }
});
