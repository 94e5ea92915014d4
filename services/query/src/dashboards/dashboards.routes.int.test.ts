import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { featureKeys } from '@renkei/contracts';
import type { DashboardEvent } from '@renkei/domain';
import { startQueryTest, type QueryTest } from '../testing/query-test.ts';

let q: QueryTest;

beforeAll(async () => {
  q = await startQueryTest({ master: { generated: { count: 1, seed: 43 } } });
});

afterAll(async () => {
  await q?.close();
});

async function record(tenantId: string, accountId: string | null, id: string, events: DashboardEvent[]) {
  await q.store.append(
    `dashboard-${id}`,
    events.map((e) => ({
      ...e,
      metadata: {
        tenant_id: tenantId,
        account_id: accountId,
        correlation_id: randomUUID(),
        causation_id: null,
        schema_version: 1,
      },
    })),
    { expectedRevision: 'any' },
  );
  // The catch-up waits for the last event the helper recorded: one more, of no projection's interest.
  await q.record(tenantId, `noop-${randomUUID()}`, 'NoopForTest', {});
}

async function get(tenantId: string, url: string) {
  const token = await q.testAuth.token({ tenantId, features: [...featureKeys] });
  return q.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}` } });
}

const fields = (id: string, name: string) => ({
  dashboard_id: id,
  name,
  filter_department: null,
  medical_institution_label_id: null,
  contents: [{ report_type: 'area_report' as const, report_id: id }],
});

describe('dashboard queries', () => {
  const tenantId = randomUUID();
  const accountId = randomUUID();
  const [older, newer, removed] = [randomUUID(), randomUUID(), randomUUID()];

  beforeAll(async () => {
    await record(tenantId, accountId, older, [
      { type: 'DashboardCreated', data: { ...fields(older, '古い'), created_by_name: '連携 花子' } },
    ]);
    await record(tenantId, accountId, newer, [
      { type: 'DashboardCreated', data: { ...fields(newer, '新しい'), created_by_name: null } },
    ]);
    await record(tenantId, accountId, newer, [{ type: 'DashboardUpdated', data: fields(newer, '新しい2') }]);
    await record(tenantId, accountId, removed, [
      { type: 'DashboardCreated', data: { ...fields(removed, '消した'), created_by_name: null } },
      { type: 'DashboardDeleted', data: { dashboard_id: removed } },
    ]);
    await q.settle();
  });

  it('lists the tenant’s dashboards newest first, paged', async () => {
    const res = await get(tenantId, '/api/dashboards?per_page=1');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().meta).toEqual({ total_count: 2, page: 1, per_page: 1, total_pages: 2 });
    expect(res.json().data).toMatchObject([{ id: newer, name: '新しい2', version: 1 }]);
    expect((await get(randomUUID(), '/api/dashboards')).json().data).toEqual([]);
  });

  it('answers one dashboard; 404 for another tenant’s or a deleted one', async () => {
    const res = await get(tenantId, `/api/dashboards/${older}`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers.etag).toBe('"0"');
    expect(res.json()).toMatchObject({
      id: older,
      name: '古い',
      filter_department: null,
      medical_institution_label_id: null,
      contents: fields(older, '古い').contents,
      created_by: { id: accountId, name: '連携 花子' },
      version: 0,
    });
    expect((await get(randomUUID(), `/api/dashboards/${older}`)).statusCode).toBe(404);
    expect((await get(tenantId, `/api/dashboards/${removed}`)).statusCode).toBe(404);
  });
});
