import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { AlertFilters, AlertTriggers } from '@renkei/contracts';
import { createTestDatabase, type TestDatabase } from '@renkei/db';
import { alertAggregate, alertIdOf, type AlertEvaluated } from '@renkei/domain';
import { createPostgresEventStore, newEventMetadata, streamId, type EventStore } from '@renkei/event-store';
import type { TestAuth } from '@renkei/service-kit/testing';
import { buildTestCommandApp, injectAs, tenantEventCount, type WriteMethod } from '../testing.ts';

let db: TestDatabase;
let store: EventStore;
let app: FastifyInstance;
let testAuth: TestAuth;

beforeAll(async () => {
  db = await createTestDatabase();
  store = await createPostgresEventStore(db);
  ({ app, testAuth } = await buildTestCommandApp(db, store));
});

afterAll(async () => {
  await app?.close();
  await store?.close();
  await db?.close();
});

interface Caller {
  tenantId: string;
  accountId: string;
  role?: 'owner' | 'member';
}
const newTenant = (): Caller => ({ tenantId: randomUUID(), accountId: randomUUID() });
const call = (caller: Caller, method: WriteMethod, url: string, payload?: unknown, headers?: Record<string, string>) =>
  injectAs({ app, testAuth }, caller, method, url, payload, headers);

const decrease = {
  name: '紹介減少（前月比50%以上減）',
  type: 'referral',
  triggers: { referral_change_rate: { direction: 'decrease', rate: 50 } },
};

/** An alert as the worker's evaluation raises it. */
async function raiseAlert(tenantId: string, conditionId = randomUUID()): Promise<string> {
  const alertId = alertIdOf(conditionId, '2026-03-01');
  const data: AlertEvaluated = {
    alert_id: alertId,
    condition_id: conditionId,
    name: '紹介減少',
    condition_summary: '前月比で紹介が50%以上減少',
    condition_parameters: {
      triggers: AlertTriggers.parse(decrease.triggers),
      filters: AlertFilters.parse({}),
    },
    alert_date: '2026-03-01',
    evaluated_on: '2026-04-01',
    target_count: 1,
    institutions: {
      medical_institution_ids: [randomUUID()],
      referral_counts: [1],
      comparison_referral_counts: [4],
      last_visit_dates: [null],
    },
  };
  await store.append(
    streamId(alertAggregate, alertId),
    [{ type: 'AlertRaised', data, metadata: newEventMetadata(tenantId) }],
    { expectedRevision: 'no_stream' },
  );
  return alertId;
}

describe('alert conditions', () => {
  it('creates a condition (owner) and deletes it once', async () => {
    const t = newTenant();
    const created = await call(t, 'POST', '/api/alert_conditions', decrease);
    expect(created.statusCode, created.body).toBe(201);
    const body = created.json();
    expect(body).toMatchObject({
      name: '紹介減少（前月比50%以上減）',
      type: 'referral',
      has_invalid: false,
      triggers: { referral_change_rate: { direction: 'decrease', rate: 50 }, referral_count: null },
      filters: { prefecture: null, tag_ids: [], communication_visit: 'all' },
    });
    expect(created.headers['x-position']).toBeTruthy();
    const removed = await call(t, 'DELETE', `/api/alert_conditions/${body.id}`);
    expect(removed.statusCode, removed.body).toBe(204);
    expect((await call(t, 'DELETE', `/api/alert_conditions/${body.id}`)).statusCode).toBe(404);
  });

  it('a member may not create or delete (403), and nothing is written', async () => {
    const owner = newTenant();
    const member: Caller = { ...owner, accountId: randomUUID(), role: 'member' };
    const id = (await call(owner, 'POST', '/api/alert_conditions', decrease)).json().id;
    const before = await tenantEventCount(db, owner.tenantId);
    expect((await call(member, 'POST', '/api/alert_conditions', decrease)).statusCode).toBe(403);
    expect((await call(member, 'DELETE', `/api/alert_conditions/${id}`)).statusCode).toBe(403);
    expect(await tenantEventCount(db, owner.tenantId)).toBe(before);
  });

  it('bad input is a 422 naming the fields, with nothing written', async () => {
    const t = newTenant();
    const cases: [unknown, string[]][] = [
      [{ ...decrease, name: ' ' }, ['name']],
      [{ ...decrease, triggers: {} }, ['triggers']],
      [
        { ...decrease, triggers: { referral_change_rate: { direction: 'down', rate: -1 } } },
        ['triggers.referral_change_rate.direction', 'triggers.referral_change_rate.rate'],
      ],
      [{ ...decrease, filters: { referral_count: { min: 5, max: 1 } } }, ['filters.referral_count.min']],
      [{ ...decrease, filters: { tag_ids: [randomUUID()] } }, ['filters.tag_ids.0']],
      [
        { ...decrease, filters: { area: randomUUID(), facility_type_ids: ['999'] } },
        ['filters.area', 'filters.facility_type_ids.0'],
      ],
      [{ ...decrease, type: 'communication' }, ['triggers.communication_visit']],
    ];
    for (const [payload, fields] of cases) {
      const res = await call(t, 'POST', '/api/alert_conditions', payload);
      expect(res.statusCode, res.body).toBe(422);
      expect(res.json().errors.map((e: { field: string }) => e.field)).toEqual(fields);
    }
    expect(await tenantEventCount(db, t.tenantId)).toBe(0);
  });

  it('takes the tenant own tags and areas; another tenant tag is unknown', async () => {
    const t = newTenant();
    const other = newTenant();
    const tag = (await call(t, 'POST', '/api/tags', { name: '重点' })).json().id;
    const otherTag = (await call(other, 'POST', '/api/tags', { name: '重点' })).json().id;
    const label = await call(t, 'POST', '/api/medical_institution_labels', {
      name: '地域',
      component_type: 'area',
      areas: [{ name: '東部', addresses: [{ prefecture: '22', city_or_locality: '沼津市' }] }],
    });
    expect(label.statusCode, label.body).toBe(201);
    const area = label.json().areas[0].id;
    const ok = await call(t, 'POST', '/api/alert_conditions', {
      ...decrease,
      filters: { tag_ids: [tag], area, prefecture: '22', facility_type_ids: ['13'], department_ids: ['01'] },
    });
    expect(ok.statusCode, ok.body).toBe(201);
    const refused = await call(t, 'POST', '/api/alert_conditions', { ...decrease, filters: { tag_ids: [otherTag] } });
    expect(refused.statusCode).toBe(422);
  });

  it('another tenant condition is a 404 to delete', async () => {
    const t = newTenant();
    const id = (await call(t, 'POST', '/api/alert_conditions', decrease)).json().id;
    expect((await call(newTenant(), 'DELETE', `/api/alert_conditions/${id}`)).statusCode).toBe(404);
  });
});

describe('archiving alerts', () => {
  it('archives an alert, idempotently; another tenant alert or an unknown id is a 404', async () => {
    const t = newTenant();
    const alertId = await raiseAlert(t.tenantId);
    const first = await call(t, 'POST', `/api/alerts/${alertId}/archive`);
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json()).toMatchObject({ id: alertId, is_archived: true, alert_date: '2026-03-01', target_count: 1 });
    const count = await tenantEventCount(db, t.tenantId);
    const again = await call(t, 'POST', `/api/alerts/${alertId}/archive`);
    expect(again.statusCode).toBe(200);
    expect(again.json().is_archived).toBe(true);
    expect(await tenantEventCount(db, t.tenantId)).toBe(count);
    expect((await call(newTenant(), 'POST', `/api/alerts/${alertId}/archive`)).statusCode).toBe(404);
    expect((await call(t, 'POST', `/api/alerts/${randomUUID()}/archive`)).statusCode).toBe(404);
  });

  it('bulk archive answers how many changed, ignoring archived, unknown and other tenants ids', async () => {
    const t = newTenant();
    const other = newTenant();
    const [a, b, c] = [await raiseAlert(t.tenantId), await raiseAlert(t.tenantId), await raiseAlert(t.tenantId)];
    const foreign = await raiseAlert(other.tenantId);
    await call(t, 'POST', `/api/alerts/${a}/archive`);
    const res = await call(t, 'POST', '/api/alerts/bulk_archive', { alert_ids: [a, b, c, c, foreign, randomUUID()] });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ count: 2 });
    expect(res.headers['x-position']).toBeTruthy();
    // The other tenant's alert is untouched.
    const otherArchive = await call(other, 'POST', `/api/alerts/${foreign}/archive`);
    expect(otherArchive.json().is_archived).toBe(true);
    expect((await call(t, 'POST', '/api/alerts/bulk_archive', { alert_ids: [] })).statusCode).toBe(422);
  });
});
