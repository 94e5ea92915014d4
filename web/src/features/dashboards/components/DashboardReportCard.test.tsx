import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import type { Dashboard, ReportDefinition } from '@renkei/contracts';
import { ApiError } from '../../../api/api-errors.ts';
import { renderInRouter } from '../../../test/render-in-router.tsx';
import { DashboardReportCard } from './DashboardReportCard.tsx';

const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const dashboard: Dashboard = {
  id: id(1),
  name: '月次会議',
  filter_department: id(2),
  medical_institution_label_id: null,
  contents: [{ report_type: 'own_department_report', report_id: id(3) }],
  created_by: null,
  updated_at: '2026-04-01T00:00:00.000Z',
  version: 0,
};
const definition: ReportDefinition = {
  id: id(3),
  kind: 'own_department_reports',
  name: '診療科別',
  display_items: [{ item_key: 'own_department_name', label: null, aggregation_method: null, formula: null }],
  filter_conditions: [],
  sort_conditions: [],
  aggregation_settings: {
    period: { from: '2025-04-01', to: '2026-03-31' },
    period_unit: 'month',
    unit_type: 'month',
    comparison_period: null,
    own_department_ids: [],
  },
  created_by: null,
  created_at: '2026-04-01T00:00:00.000Z',
  updated_at: '2026-04-01T00:00:00.000Z',
  alert_date: null,
  version: 0,
};

const render = (api: object) =>
  renderInRouter(() => <DashboardReportCard dashboard={dashboard} content={dashboard.contents[0]!} />, {
    api,
    paths: ['/own_department_reports/$id', '/crms/$id'],
  });

describe('dashboard report card', () => {
  it('reads the report first, then runs it narrowed to the dashboard’s department', async () => {
    const api = {
      ownDepartmentReportsGetDefinition: vi.fn(async () => definition),
      ownDepartmentReportsResults: vi.fn(async () => ({
        columns: [{ key: 'own_department_name', label: '自院診療科', value_type: 'string' }],
        rows: [{ id: id(2), own_department_name: '内科' }],
        meta: { total_count: 1, page: 1, per_page: 20, total_pages: 1 },
      })),
    };
    render(api);
    expect(await screen.findByText('内科')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: '診療科別' })).toBeInTheDocument();
    // The report's period beside its kind: a printed dashboard says which months its figures are.
    expect(screen.getByTestId('dashboard-report-kind')).toHaveTextContent(
      '自院診療科レポート・2025年4月〜2026年3月（月）',
    );
    expect(api.ownDepartmentReportsResults).toHaveBeenCalledWith(
      expect.objectContaining({
        body: expect.objectContaining({
          definition: expect.objectContaining({
            aggregation_settings: expect.objectContaining({ own_department_ids: [id(2)] }),
          }),
        }),
      }),
    );
  });

  it('pages through a report with more rows than a card shows', async () => {
    const departments = ['内科', '外科', '小児科'];
    const api = {
      ownDepartmentReportsGetDefinition: vi.fn(async () => definition),
      ownDepartmentReportsResults: vi.fn(async ({ body }: { body: { page: number } }) => ({
        columns: [{ key: 'own_department_name', label: '自院診療科', value_type: 'string' }],
        rows: [{ id: id(10 + body.page), own_department_name: departments[body.page - 1] }],
        meta: { total_count: 3, page: body.page, per_page: 1, total_pages: 3 },
      })),
    };
    render(api);
    expect(await screen.findByText('内科')).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: '3' }));
    expect(await screen.findByText('小児科')).toBeInTheDocument();
    expect(screen.queryByText('内科')).not.toBeInTheDocument();
    expect(api.ownDepartmentReportsResults).toHaveBeenLastCalledWith(
      expect.objectContaining({ body: expect.objectContaining({ page: 3, per_page: 20 }) }),
    );
  });

  it('shows a deleted report as deleted, without running anything', async () => {
    const api = {
      ownDepartmentReportsGetDefinition: vi.fn(async () => {
        throw new ApiError(404, 'not found');
      }),
      ownDepartmentReportsResults: vi.fn(),
    };
    render(api);
    expect(await screen.findByText('削除されたレポート')).toBeInTheDocument();
    await waitFor(() => expect(api.ownDepartmentReportsGetDefinition).toHaveBeenCalled());
    expect(api.ownDepartmentReportsResults).not.toHaveBeenCalled();
  });
});
