import { describe, it } from 'vitest';
import { DashboardInput } from '@renkei/contracts';
import type { DashboardEvent } from '@renkei/domain';
import { invalid, notFound } from '../shared/decider.ts';
import { given } from '../shared/given-when-then.ts';
import { dashboardDecider, type DashboardFacts } from './dashboard.decider.ts';

const id = '0f8fad5b-d9cb-469f-a165-70867728950e';
const dept = '11111111-1111-4111-8111-111111111111';
const label = '22222222-2222-4222-8222-222222222222';
const report = '33333333-3333-4333-8333-333333333333';
const area = '44444444-4444-4444-8444-444444444444';
const unknown = '55555555-5555-4555-8555-555555555555';

const facts: DashboardFacts = {
  ownDepartmentIds: new Set([dept]),
  institutionLabelIds: new Set([label]),
  reports: new Map([
    [report, 'medical_institution_reports'],
    [area, 'area_reports'],
  ]),
};
const input = (over: Record<string, unknown> = {}) =>
  DashboardInput.parse({
    name: '月次会議',
    filter_department: dept,
    medical_institution_label_id: label,
    contents: [{ report_type: 'medical_institution_report', report_id: report }],
    ...over,
  });
const fields = {
  dashboard_id: id,
  name: '月次会議',
  filter_department: dept,
  medical_institution_label_id: label,
  contents: [{ report_type: 'medical_institution_report' as const, report_id: report }],
};
const created: DashboardEvent = { type: 'DashboardCreated', data: { ...fields, created_by_name: '連携 花子' } };

describe('dashboard decider', () => {
  it('creates a dashboard of the tenant’s department, label and reports', () => {
    given(dashboardDecider)
      .when({ type: 'CreateDashboard', dashboardId: id, input: input(), createdByName: '連携 花子', facts })
      .then([created]);
  });

  it('refuses what is not the tenant’s, and a report of another type, by field', () => {
    given(dashboardDecider)
      .when({
        type: 'CreateDashboard',
        dashboardId: id,
        createdByName: null,
        facts,
        input: input({
          filter_department: unknown,
          medical_institution_label_id: unknown,
          contents: [
            { report_type: 'area_report', report_id: area },
            { report_type: 'area_report', report_id: report },
            { report_type: 'own_department_report', report_id: unknown },
          ],
        }),
      })
      .thenRejected(
        invalid(
          { field: 'filter_department', message: '診療科が見つかりません' },
          { field: 'medical_institution_label_id', message: 'ラベルが見つかりません' },
          { field: 'contents.1.report_id', message: 'レポートの種類が一致しません' },
          { field: 'contents.2.report_id', message: 'レポートが見つかりません' },
        ),
      );
  });

  it('updates, records nothing for the same dashboard, and deletes', () => {
    given(dashboardDecider, [created])
      .when({ type: 'UpdateDashboard', dashboardId: id, input: input({ name: '週次' }), facts })
      .then([{ type: 'DashboardUpdated', data: { ...fields, name: '週次' } }]);
    given(dashboardDecider, [created])
      .when({ type: 'UpdateDashboard', dashboardId: id, input: input(), facts })
      .then([]);
    const deleted: DashboardEvent = { type: 'DashboardDeleted', data: { dashboard_id: id } };
    given(dashboardDecider, [created]).when({ type: 'DeleteDashboard', dashboardId: id }).then([deleted]);
    given(dashboardDecider, [created, deleted])
      .when({ type: 'DeleteDashboard', dashboardId: id })
      .thenRejected(notFound());
    given(dashboardDecider)
      .when({ type: 'UpdateDashboard', dashboardId: id, input: input(), facts })
      .thenRejected(notFound());
  });
});
