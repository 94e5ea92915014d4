import { randomUUID } from 'node:crypto';
import { describe, it } from 'vitest';
import { projectionTest } from '@renkei/projections/testing';
import { alertsProjection } from './alerts.projection.ts';

const test = projectionTest(alertsProjection);

const triggers = {
  referral_change_count: null,
  referral_change_rate: null,
  referral_count: { comparison: 'lte', count: 0 },
  referral_average: null,
  communication_visit: null,
};
const filters = {
  prefecture: null,
  area: null,
  facility_type_ids: [],
  department_ids: [],
  tag_ids: [],
  referral_count: null,
  referral_average: null,
  communication_visit: 'all',
};

const evaluation = (alertId: string, conditionId: string, institutions: string[]) => ({
  alert_id: alertId,
  condition_id: conditionId,
  name: '紹介なし',
  condition_summary: '前月の紹介が0件以下',
  condition_parameters: { triggers, filters },
  alert_date: '2026-03-01',
  evaluated_on: '2026-04-01',
  target_count: institutions.length,
  institutions: {
    medical_institution_ids: institutions,
    referral_counts: institutions.map(() => 0),
    comparison_referral_counts: institutions.map((_, i) => i + 1),
    last_visit_dates: institutions.map(() => null),
  },
});

describe('alerts projection', () => {
  it('keeps live conditions, each alert with its last evaluation and archive flag across batches', async () => {
    const [kept, removed, alert, c, i1, i2, i3] = Array.from({ length: 7 }, () => randomUUID()) as string[] as [
      string,
      string,
      string,
      string,
      string,
      string,
      string,
    ];
    const created = (id: string) => ({
      type: 'AlertConditionCreated',
      stream: `alert_condition-${id}`,
      data: { condition_id: id, name: '紹介なし', type: 'referral', triggers, filters },
    });
    const stream = `alert-${alert}`;
    await test
      .given(
        [created(kept), created(removed), { type: 'AlertRaised', stream, data: evaluation(alert, c, [i1, i2]) }],
        [
          { type: 'AlertConditionDeleted', stream: `alert_condition-${removed}`, data: { condition_id: removed } },
          { type: 'AlertUpdated', stream, data: evaluation(alert, c, [i3]) },
          { type: 'AlertArchived', stream, data: { alert_id: alert } },
        ],
      )
      .thenRows('alert_conditions', [{ tenant_id: test.tenantId, id: kept, name: '紹介なし' }]);
    await test
      .given(
        [{ type: 'AlertRaised', stream, data: evaluation(alert, c, [i1, i2]) }],
        [{ type: 'AlertArchived', stream, data: { alert_id: alert } }],
      )
      .thenRows('alerts', [{ tenant_id: test.tenantId, id: alert, target_count: 2, is_archived: true, version: 1 }]);
    await test
      .given(
        [{ type: 'AlertRaised', stream, data: evaluation(alert, c, [i1, i2]) }],
        [{ type: 'AlertUpdated', stream, data: evaluation(alert, c, [i3]) }],
      )
      .thenRows('alert_institutions', [
        {
          tenant_id: test.tenantId,
          alert_id: alert,
          position: 0,
          medical_institution_id: i3,
          comparison_referral_count: 1,
        },
      ]);
  });
});
