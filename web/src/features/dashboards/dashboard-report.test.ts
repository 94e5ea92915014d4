import { describe, expect, it } from 'vitest';
import type { ReportDefinition } from '@renkei/contracts';
import { dashboardResultBody } from './dashboard-report.ts';

const dept = '11111111-1111-4111-8111-111111111111';
const label = '22222222-2222-4222-8222-222222222222';
const definition: ReportDefinition = {
  id: '33333333-3333-4333-8333-333333333333',
  kind: 'medical_institution_reports',
  name: '紹介元',
  display_items: [{ item_key: 'medical_institution_name', label: null, aggregation_method: null, formula: null }],
  filter_conditions: [],
  sort_conditions: [],
  aggregation_settings: {
    period: { from: '2025-04-01', to: '2026-03-31' },
    period_unit: 'month',
    unit_type: 'month',
    comparison_period: null,
    own_department_ids: ['44444444-4444-4444-8444-444444444444'],
  },
  created_by: null,
  created_at: '2026-04-01T00:00:00.000Z',
  updated_at: '2026-04-01T00:00:00.000Z',
  alert_date: null,
  version: 0,
};

describe('dashboardResultBody', () => {
  it('runs the saved report by id when the dashboard narrows nothing', () => {
    expect(
      dashboardResultBody(
        { filter_department: null, medical_institution_label_id: null },
        'area_reports',
        definition,
        1,
        20,
      ),
    ).toEqual({ definition_id: definition.id, page: 1, per_page: 20 });
  });

  it('replaces the report’s departments and adds the label column to institution reports', () => {
    const body = dashboardResultBody(
      { filter_department: dept, medical_institution_label_id: label },
      'medical_institution_reports',
      definition,
      3,
      20,
    );
    expect(body).toMatchObject({
      page: 3,
      per_page: 20,
      definition: {
        display_items: [{ item_key: 'medical_institution_name' }, { item_key: `label:${label}` }],
        aggregation_settings: { own_department_ids: [dept] },
      },
    });
  });

  it('adds no label to other kinds, and no department to kinds without departments', () => {
    expect(
      dashboardResultBody(
        { filter_department: dept, medical_institution_label_id: label },
        'communication_reports',
        definition,
        1,
        20,
      ),
    ).toEqual({ definition_id: definition.id, page: 1, per_page: 20 });
  });
});
