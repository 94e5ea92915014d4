import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { featureKeys } from '@renkei/contracts';
import type { ReportDefinitionEvent } from '@renkei/domain';
import { startQueryTest, type QueryTest } from '../testing/query-test.ts';

let q: QueryTest;

beforeAll(async () => {
  q = await startQueryTest({ master: { generated: { count: 1, seed: 41 } } });
});

afterAll(async () => {
  await q?.close();
});

/** Appends what the command service appends for a definition, as `accountId`. */
async function record(tenantId: string, accountId: string | null, id: string, events: ReportDefinitionEvent[]) {
  await q.store.append(
    `report_definition-${id}`,
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

const definition = {
  display_items: [{ item_key: 'medical_institution_name', label: null, aggregation_method: null, formula: null }],
  filter_conditions: [],
  sort_conditions: [],
  aggregation_settings: {
    period: { from: '2025-04-01', to: '2026-03-31' },
    period_unit: 'month' as const,
    unit_type: 'month' as const,
    comparison_period: null,
    own_department_ids: [],
  },
};
const created = (id: string, kind: string, name: string): ReportDefinitionEvent => ({
  type: 'ReportDefinitionCreated',
  data: { report_definition_id: id, kind: kind as never, name, definition, created_by_name: '連携 花子' },
});
const raised = (id: string, alert_date: string): ReportDefinitionEvent => ({
  type: 'ReportAlertRaised',
  data: { report_definition_id: id, alert_date },
});

describe('report definition queries', () => {
  const tenantId = randomUUID();
  const accountId = randomUUID();
  const [first, second, third, area, removed] = [randomUUID(), randomUUID(), randomUUID(), randomUUID(), randomUUID()];
  const settings = {
    enabled: true,
    conditions: [{ item_key: 'referral_count', operator: 'gte' as const, values: ['5'] }],
    notify_user_ids: [accountId],
  };

  beforeAll(async () => {
    await record(tenantId, accountId, first, [created(first, 'medical_institution_reports', '一番目')]);
    await record(tenantId, accountId, second, [created(second, 'medical_institution_reports', '二番目')]);
    await record(tenantId, null, third, [created(third, 'medical_institution_reports', '三番目')]);
    await record(tenantId, accountId, area, [created(area, 'area_reports', 'エリア')]);
    await record(tenantId, accountId, removed, [created(removed, 'medical_institution_reports', '消した')]);
    await record(tenantId, accountId, removed, [
      { type: 'ReportDefinitionDeleted', data: { report_definition_id: removed } },
    ]);
    await record(tenantId, accountId, first, [
      raised(first, '2026-04-01'),
      {
        type: 'ReportAlertSettingsChanged',
        data: { report_definition_id: first, alert_settings: settings, version: 1 },
      },
    ]);
    await record(tenantId, accountId, second, [raised(second, '2026-05-01')]);
    await q.settle();
  });

  it('lists a kind newest first, paged, without deleted ones or other kinds', async () => {
    const res = await get(tenantId, '/api/medical_institution_reports/definitions?per_page=2');
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body.meta).toEqual({ total_count: 3, page: 1, per_page: 2, total_pages: 2 });
    expect(body.data.map((d: { name: string }) => d.name)).toEqual(['三番目', '二番目']);
    expect(body.data[0]).toMatchObject({ created_by: null, alert_date: null, version: 0 });
    const asc = await get(tenantId, '/api/medical_institution_reports/definitions?sort=asc');
    expect(asc.json().data.map((d: { name: string }) => d.name)).toEqual(['一番目', '二番目', '三番目']);
    const areas = await get(tenantId, '/api/area_reports/definitions');
    expect(areas.json().data.map((d: { id: string }) => d.id)).toEqual([area]);
  });

  it('sorts by alert date with never-alerted definitions last', async () => {
    const desc = await get(tenantId, '/api/medical_institution_reports/definitions?sort_by=alert_date&sort=desc');
    expect(desc.json().data.map((d: { name: string }) => d.name)).toEqual(['二番目', '一番目', '三番目']);
    const asc = await get(tenantId, '/api/medical_institution_reports/definitions?sort_by=alert_date&sort=asc');
    expect(asc.json().data.map((d: { name: string }) => d.name)).toEqual(['一番目', '二番目', '三番目']);
  });

  it('answers one definition with its version as ETag; 404 for another kind, tenant or a deleted one', async () => {
    const res = await get(tenantId, `/api/medical_institution_reports/definitions/${first}`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers.etag).toBe('"1"');
    expect(res.json()).toMatchObject({
      id: first,
      kind: 'medical_institution_reports',
      name: '一番目',
      ...definition,
      created_by: { id: accountId, name: '連携 花子' },
      alert_date: '2026-04-01',
      version: 1,
    });
    expect((await get(tenantId, `/api/area_reports/definitions/${first}`)).statusCode).toBe(404);
    expect((await get(randomUUID(), `/api/medical_institution_reports/definitions/${first}`)).statusCode).toBe(404);
    expect((await get(tenantId, `/api/medical_institution_reports/definitions/${removed}`)).statusCode).toBe(404);
    expect((await get(tenantId, `/api/medical_institution_reports/definitions/not-a-uuid`)).statusCode).toBe(404);
  });

  it('answers alert settings of institution reports, defaults when never set', async () => {
    const res = await get(tenantId, `/api/medical_institution_reports/definitions/${first}/alert_settings`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual(settings);
    const none = await get(tenantId, `/api/medical_institution_reports/definitions/${second}/alert_settings`);
    expect(none.json()).toEqual({ enabled: false, conditions: [], notify_user_ids: [] });
    expect(
      (await get(tenantId, `/api/medical_institution_reports/definitions/${area}/alert_settings`)).statusCode,
    ).toBe(404);
  });
});
