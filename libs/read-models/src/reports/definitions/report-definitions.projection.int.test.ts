import { randomUUID } from 'node:crypto';
import { describe, it } from 'vitest';
import { projectionTest } from '@renkei/projections/testing';
import { reportDefinitionsProjection } from './report-definitions.projection.ts';

const test = projectionTest(reportDefinitionsProjection);

const definition = (from: string) => ({
  display_items: [{ item_key: 'medical_institution_name', label: null, aggregation_method: null, formula: null }],
  filter_conditions: [],
  sort_conditions: [],
  aggregation_settings: {
    period: { from, to: '2026-03-31' },
    period_unit: 'month',
    unit_type: 'month',
    comparison_period: null,
    own_department_ids: [],
  },
});
const settings = {
  enabled: true,
  conditions: [{ item_key: 'referral_count', operator: 'lte', values: ['0'] }],
  notify_user_ids: [],
};
const off = { enabled: false, conditions: [], notify_user_ids: [] };
// node-postgres reads a date as local midnight.
const day = (y: number, m: number, d: number) => new Date(y, m - 1, d);

describe('report definitions projection', () => {
  it('keeps definitions with their edits, alert settings and alert day, across batches', async () => {
    const [a, b, gone] = [randomUUID(), randomUUID(), randomUUID()];
    const creator = randomUUID();
    const on = (id: string) => ({ stream: `report_definition-${id}` });
    const created = (id: string, kind: string, name: string) => ({
      type: 'ReportDefinitionCreated',
      ...on(id),
      accountId: creator,
      data: {
        report_definition_id: id,
        kind,
        name,
        definition: definition('2025-04-01'),
        created_by_name: '連携 花子',
      },
    });
    await test
      .given(
        [
          created(a, 'medical_institution_reports', '紹介元'),
          created(b, 'area_reports', 'エリア'),
          created(gone, 'area_reports', '消す'),
          { type: 'ReportAlertRaised', ...on(a), data: { report_definition_id: a, alert_date: '2026-04-01' } },
        ],
        [
          {
            type: 'ReportDefinitionUpdated',
            ...on(a),
            data: { report_definition_id: a, name: '紹介元2025', definition: definition('2025-10-01'), version: 1 },
          },
          {
            type: 'ReportAlertSettingsChanged',
            ...on(a),
            data: { report_definition_id: a, alert_settings: settings, version: 2 },
          },
          { type: 'ReportAlertRaised', ...on(a), data: { report_definition_id: a, alert_date: '2026-04-02' } },
          { type: 'ReportAlertRaised', ...on(b), data: { report_definition_id: b, alert_date: '2026-04-03' } },
          { type: 'ReportDefinitionDeleted', ...on(gone), data: { report_definition_id: gone } },
        ],
      )
      .thenRows('report_definitions', [
        {
          tenant_id: test.tenantId,
          id: a,
          kind: 'medical_institution_reports',
          name: '紹介元2025',
          definition: definition('2025-10-01'),
          alert_settings: settings,
          alert_date: day(2026, 4, 2),
          created_by_id: creator,
          created_by_name: '連携 花子',
          version: 2,
        },
        {
          tenant_id: test.tenantId,
          id: b,
          kind: 'area_reports',
          name: 'エリア',
          definition: definition('2025-04-01'),
          alert_settings: off,
          alert_date: day(2026, 4, 3),
          created_by_id: creator,
          created_by_name: '連携 花子',
          version: 0,
        },
      ]);
  });

  it('removes a definition created and deleted in one batch, and ignores an older edit', async () => {
    const [a, b] = [randomUUID(), randomUUID()];
    const on = (id: string) => ({ stream: `report_definition-${id}` });
    const created = (id: string) => ({
      type: 'ReportDefinitionCreated',
      ...on(id),
      data: {
        report_definition_id: id,
        kind: 'own_department_reports',
        name: 'x',
        definition: definition('2025-04-01'),
      },
    });
    await test
      .given(
        [created(a), { type: 'ReportDefinitionDeleted', ...on(a), data: { report_definition_id: a } }, created(b)],
        [
          {
            type: 'ReportDefinitionUpdated',
            ...on(b),
            data: { report_definition_id: b, name: 'y', definition: definition('2025-04-01'), version: 2 },
          },
        ],
        [
          {
            type: 'ReportDefinitionUpdated',
            ...on(b),
            data: { report_definition_id: b, name: 'stale', definition: definition('2025-04-01'), version: 1 },
          },
        ],
      )
      .thenRows('report_definitions', [{ id: b, name: 'y', version: 2, created_by_id: null, created_by_name: null }]);
  });

  it('refuses an event it cannot read', async () => {
    await test
      .given([{ type: 'ReportDefinitionDeleted', data: { report_definition_id: 'not-a-uuid' } }])
      .thenFails(/./);
  });
});
