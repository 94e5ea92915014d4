import { randomUUID } from 'node:crypto';
import { describe, it } from 'vitest';
import { projectionTest } from '@renkei/projections/testing';
import { dashboardsProjection } from './dashboards.projection.ts';

const test = projectionTest(dashboardsProjection);

describe('dashboards projection', () => {
  it('keeps dashboards as last saved, across batches, and drops deleted ones', async () => {
    const [a, gone, report, creator] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
    const on = (id: string) => ({ stream: `dashboard-${id}` });
    const fields = (id: string, name: string) => ({
      dashboard_id: id,
      name,
      filter_department: null,
      medical_institution_label_id: null,
      contents: [{ report_type: 'area_report', report_id: report }],
    });
    await test
      .given(
        [
          {
            type: 'DashboardCreated',
            ...on(a),
            accountId: creator,
            data: { ...fields(a, '月次'), created_by_name: '花子' },
          },
          { type: 'DashboardCreated', ...on(gone), data: fields(gone, '消す') },
        ],
        [
          { type: 'DashboardUpdated', ...on(a), data: { ...fields(a, '週次'), contents: [] } },
          { type: 'DashboardDeleted', ...on(gone), data: { dashboard_id: gone } },
        ],
      )
      .thenRows('dashboards', [
        {
          tenant_id: test.tenantId,
          id: a,
          name: '週次',
          contents: [],
          created_by: creator,
          created_by_name: '花子',
          version: 1,
        },
      ]);
  });

  it('refuses an event it cannot read', async () => {
    await test.given([{ type: 'DashboardDeleted', data: { dashboard_id: 'x' } }]).thenFails(/./);
  });
});
