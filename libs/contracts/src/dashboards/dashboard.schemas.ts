import { z } from 'zod';
import { endpoint } from '../core/endpoint.ts';
import { Id, IdParams, IsoDateTime, NoContent, PageQuery, paged } from '../core/zod-helpers.ts';
import { UserRef } from '../core/refs.ts';

export const DashboardReportType = z.enum([
  'area_report',
  'communication_report',
  'medical_institution_report',
  'own_department_report',
]);

export const DashboardContent = z.object({ report_type: DashboardReportType, report_id: Id });

export const Dashboard = z.object({
  id: Id,
  name: z.string(),
  /** Own department every report of the dashboard is narrowed to; null: all. */
  filter_department: Id.nullable(),
  medical_institution_label_id: Id.nullable(),
  contents: z.array(DashboardContent),
  created_by: UserRef.nullable(),
  updated_at: IsoDateTime,
  version: z.number().int(),
});
export type Dashboard = z.infer<typeof Dashboard>;

export const DashboardInput = z.object({
  name: z
    .string()
    .trim()
    .min(1, 'ダッシュボード名を入力してください')
    .max(100, 'ダッシュボード名は100文字以内で入力してください'),
  filter_department: Id.nullable().default(null),
  medical_institution_label_id: Id.nullable().default(null),
  contents: z.array(DashboardContent).max(20, 'レポートは20件まで配置できます').default([]),
});
export type DashboardInput = z.infer<typeof DashboardInput>;

const db = { area: 'dashboards', feature: 'dashboard', served: true } as const;

export const dashboardEndpoints = {
  listDashboards: endpoint({
    ...db,
    id: 'dashboards.list',
    method: 'GET',
    path: '/dashboards',
    service: 'query',
    summary: 'ダッシュボード一覧',
    query: PageQuery,
    response: paged(Dashboard),
    successStatus: 200,
  }),
  createDashboard: endpoint({
    ...db,
    id: 'dashboards.create',
    method: 'POST',
    path: '/dashboards',
    service: 'command',
    summary: 'ダッシュボード作成',
    body: DashboardInput,
    response: Dashboard,
    successStatus: 201,
  }),
  getDashboard: endpoint({
    ...db,
    id: 'dashboards.get',
    method: 'GET',
    path: '/dashboards/{id}',
    service: 'query',
    summary: 'ダッシュボード詳細',
    params: IdParams,
    response: Dashboard,
    successStatus: 200,
  }),
  updateDashboard: endpoint({
    ...db,
    id: 'dashboards.update',
    method: 'PUT',
    path: '/dashboards/{id}',
    service: 'command',
    summary: 'ダッシュボード更新',
    params: IdParams,
    body: DashboardInput,
    response: Dashboard,
    successStatus: 200,
  }),
  deleteDashboard: endpoint({
    ...db,
    id: 'dashboards.delete',
    method: 'DELETE',
    path: '/dashboards/{id}',
    service: 'command',
    summary: 'ダッシュボード削除',
    params: IdParams,
    response: NoContent,
    successStatus: 204,
  }),
};
