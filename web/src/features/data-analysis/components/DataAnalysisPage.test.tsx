import { MantineProvider } from '@mantine/core';
import type { ChartData, FeatureKey, RankingResult } from '@renkei/contracts';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import {
  createMemoryHistory,
  createRootRoute,
  createRoute,
  createRouter,
  Outlet,
  RouterProvider,
} from '@tanstack/react-router';
import { configure, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../../../api/api-errors.ts';
import { ServicesProvider, type AppServices } from '../../../app/services-context.tsx';
import { testServices } from '../../../test/render-app.tsx';
import type { AnalysisSearch } from '../analysis-search.ts';
import { currentUserQueries } from '../../current-user/current-user.queries.ts';
import { DataAnalysisPage } from './DataAnalysisPage.tsx';

const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const today = '2026-11-24';
const allFeatures: FeatureKey[] = ['data_analysis', 'report', 'reverse_referrals', 'communications', 'tags'];

const months = ['4月', '5月', '6月', '7月', '8月', '9月', '10月', '11月'];
const chart = (now: (number | null)[], before: (number | null)[]): ChartData => ({
  labels: months,
  series: [
    { key: 'referrals', name: '紹介（対象期間）', values: now },
    { key: 'comparison_referrals', name: '紹介（比較期間）', values: before },
  ],
});

type Body = { period?: { from: string; to: string }; filter_conditions?: { period: { from: string } } };
const isCurrent = (body: Body) => (body.period ?? body.filter_conditions!.period).from.startsWith('2026');

function aggregation(body: { filter_conditions: { period: { from: string } }; grouping_conditions: string[] }) {
  const now = isCurrent(body);
  const key = body.grouping_conditions[0]!;
  const rows =
    key === 'own_department'
      ? [
          ['内科', now ? 30 : 20, now ? 12 : 8, now ? 3 : 2],
          ['整形外科', now ? 10 : 20, now ? 4 : 6, now ? 5 : 4],
        ]
      : [
          [
            { prefecture: '静岡県', facility_type: 'hospital' }[key] ?? `${key}-A`,
            now ? 40 : 40,
            now ? 16 : 14,
            now ? 8 : 6,
          ],
        ];
  return {
    data: rows.map(([name, referrals, admissions, operations]) => ({
      grouping_keys: Object.fromEntries(body.grouping_conditions.map((k, i) => [k, i === 0 ? String(name) : '静岡市'])),
      referral_count: referrals as number,
      hospital_admission_count: admissions as number,
      hospital_admission_rate: null,
      operation_count: operations as number,
      operation_rate: null,
    })),
  };
}

function ranking(body: Body): RankingResult {
  const rows: [number, string, number][] = isCurrent(body)
    ? [
        [1, '駿河クリニック', 25],
        [2, '清水医院', 15],
      ]
    : [
        [2, '清水医院', 22],
        [1, '駿河クリニック', 10],
        [3, '閉院医院', 8],
      ];
  return {
    labels: [],
    data: rows.map(([n, name, total], i) => ({
      rank: i + 1,
      medical_institution: { id: id(n), name },
      total,
      values: [],
    })),
  };
}

function fakeApi(overrides: Record<string, unknown> = {}) {
  return {
    referralsComparison: vi.fn(async () => chart([5, 5, 5, 5, 5, 5, 5, 5], [5, 5, 5, 5, 5, 5, 5, 5])),
    reverseReferralsComparisonMonthly: vi.fn(async () => chart([2, 2, 2, 2, 2, 2, 2, 2], [1, 1, 1, 1, 1, 1, 1, 1])),
    bothReferralsComparison: vi.fn(async () => ({
      labels: months,
      series: [
        { key: 'referrals', name: '紹介（対象期間）', values: [5, 5, 5, 5, 5, 5, 5, 5] },
        { key: 'comparison_referrals', name: '紹介（比較期間）', values: [5, 5, 5, 5, 5, 5, 5, 5] },
        { key: 'reverse_referrals', name: '逆紹介（対象期間）', values: [2, 2, 2, 2, 2, 2, 2, 2] },
        { key: 'comparison_reverse_referrals', name: '逆紹介（比較期間）', values: [1, 1, 1, 1, 1, 1, 1, 1] },
      ],
    })),
    referralReportsAggregationResults: vi.fn(async ({ body }: { body: Parameters<typeof aggregation>[0] }) =>
      aggregation(body),
    ),
    referralTotalCountRanking: vi.fn(async ({ body }: { body: Body }) => ranking(body)),
    effectivenessVerification: vi.fn(async () => ({
      data: [
        {
          medical_institution: { id: id(1), name: '駿河クリニック' },
          communication_count: 3,
          referral_count: 25,
          comparison_referral_count: 10,
          rate_of_referral_change: 1.5,
        },
      ],
      summary: {
        communicated_institution_count: 1,
        referral_count: 25,
        comparison_referral_count: 10,
        communicated_referral_change_rate: 1.5,
        non_communicated_referral_change_rate: -0.1,
      },
    })),
    // The visit analysis panel (its own test covers it).
    visits: vi.fn(async () => ({
      labels: months,
      series: [{ key: 'visits', name: '訪問件数', values: months.map(() => 0) }],
    })),
    visitsDoctorInterviewRates: vi.fn(async () => ({ labels: months, series: [] })),
    visitsNextActionRates: vi.fn(async () => ({ labels: months, series: [] })),
    listStaffs: vi.fn(async () => []),
    listOwnDepartments: vi.fn(async () => [
      { id: id(51), name: '内科', department_id: '01', order: 0 },
      { id: id(52), name: '整形外科', department_id: '02', order: 1 },
    ]),
    listFacilityTypeGroups: vi.fn(async () => [
      { id: 'g1', name: '病院', facility_types: [{ id: 'hospital', name: '一般病院' }] },
    ]),
    listTags: vi.fn(async () => ({ data: [], meta: { total_count: 0, page: 1, per_page: 100 } })),
    getCurrentUser: vi.fn(async () => ({ tenant: { is_group: false, group_medical_institutions: [] } })),
    groupReferralsComparison: vi.fn(async () => ({
      labels: ['駿河中央病院', '清水分院'],
      series: [
        { key: 'referrals', name: '紹介（対象期間）', values: [120, 45] },
        { key: 'comparison_referrals', name: '紹介（比較期間）', values: [100, 50] },
      ],
    })),
    groupReferrals: vi.fn(async () => ({
      labels: months,
      series: [
        { key: id(81), name: '駿河中央病院', values: [15, 15, 15, 15, 15, 15, 15, 15] },
        { key: id(82), name: '清水分院', values: [5, 6, 5, 6, 5, 6, 5, 6] },
      ],
    })),
    ...overrides,
  };
}

function renderPage(
  api: ReturnType<typeof fakeApi>,
  opts: {
    search?: AnalysisSearch;
    features?: FeatureKey[];
    onSearchChange?: (p: AnalysisSearch) => void;
    role?: 'owner' | 'member';
    ownDepartmentId?: string | null;
  } = {},
) {
  const root = createRootRoute({ component: () => <Outlet /> });
  const page = createRoute({
    getParentRoute: () => root,
    path: '/data_analysis',
    component: () => (
      <DataAnalysisPage
        search={opts.search ?? {}}
        today={today}
        features={opts.features ?? allFeatures}
        ownDepartmentId={opts.ownDepartmentId ?? null}
        onSearchChange={opts.onSearchChange ?? (() => {})}
      />
    ),
  });
  const crm = createRoute({ getParentRoute: () => root, path: '/crms/$id', component: () => <p>医療機関ページ</p> });
  const uploads = createRoute({
    getParentRoute: () => root,
    path: '/data_uploads',
    component: () => <p>アップロード</p>,
  });
  const router = createRouter({
    routeTree: root.addChildren([page, crm, uploads]),
    history: createMemoryHistory({ initialEntries: ['/app/data_analysis'] }),
    basepath: '/app',
  });
  const services: AppServices = { ...testServices(), api: api as unknown as AppServices['api'] };
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  // What the authenticated layout caches: the page reads the user's role from it.
  client.setQueryData(currentUserQueries.detail(services.api).queryKey, {
    role: opts.role ?? 'owner',
    features: [...(opts.features ?? allFeatures), 'data_uploads'],
  } as never);
  render(
    <MantineProvider>
      <ServicesProvider value={services}>
        <QueryClientProvider client={client}>
          <RouterProvider router={router as never} />
        </QueryClientProvider>
      </ServicesProvider>
    </MantineProvider>,
  );
  return router;
}

// The page renders a dozen panels through the router; on a loaded two-core machine that takes over a second.
configure({ asyncUtilTimeout: 5000 });

afterEach(() => vi.restoreAllMocks());

// The whole page renders in jsdom (a dozen panels with tables and charts): several seconds per test on a
// loaded machine, past vitest's 5 s default although nothing is wrong.
describe('data analysis page', { timeout: 30_000 }, () => {
  it('asks every call for this 年度 to date against the same dates last 年度, and shows the KPIs with their change', async () => {
    const api = fakeApi();
    renderPage(api);
    // 30 + 10 referrals now against 20 + 20: the cards sum the groups of one grouping.
    expect(await screen.findByTestId('kpi-referrals-value')).toHaveTextContent('40');
    const admissions = screen.getByTestId('kpi-admissions');
    expect(admissions).toHaveTextContent('16');
    expect(admissions).toHaveTextContent('入院率 40.0%');
    expect(admissions).toHaveTextContent('+2（+14.3%）');
    expect(screen.getByTestId('kpi-operations')).toHaveTextContent('手術率 20.0%');
    expect(await screen.findByTestId('kpi-reverse_referrals-value')).toHaveTextContent('16');
    expect(screen.getByTestId('kpi-reverse_referrals')).toHaveTextContent('+8（+100.0%）');

    const period = { from: '2026-04-01', to: '2026-11-24' };
    const comparison = { from: '2025-04-01', to: '2025-11-24' };
    expect(api.referralsComparison).toHaveBeenCalledWith(
      expect.objectContaining({
        body: expect.objectContaining({ period, comparison_period: comparison, period_unit: 'month' }),
      }),
    );
    const groupings = api.referralReportsAggregationResults.mock.calls.map(
      ([args]) => `${args.body.grouping_conditions.join('+')}@${args.body.filter_conditions.period.from}`,
    );
    expect(new Set(groupings)).toEqual(
      new Set(
        ['own_department', 'referral_department', 'prefecture+city', 'facility_type'].flatMap((g) => [
          `${g}@2026-04-01`,
          `${g}@2025-04-01`,
        ]),
      ),
    );
    expect(screen.getByTestId('analysis-conditions')).toHaveTextContent(
      '期間 2026/04/01〜2026/11/24（月単位） 比較 2025/04/01〜2025/11/24（前年同期） 自院診療科 すべて',
    );
  });

  it("ends this 年度 to date at the uploaded data's last day, and says so in the period choice", async () => {
    const api = fakeApi({
      dataCoverage: vi.fn(async () => ({
        referrals: { from: '2023-04-03', to: '2026-10-31' },
        reverse_referrals: { from: '2023-04-05', to: '2026-10-31' },
      })),
    });
    renderPage(api);
    await waitFor(() =>
      expect(screen.getByTestId('analysis-conditions')).toHaveTextContent(
        '期間 2026/04/01〜2026/10/31（月単位） 比較 2025/04/01〜2025/10/31（前年同期）',
      ),
    );
    expect(screen.getByTestId('analysis-conditions')).toHaveTextContent('（紹介データは2026/10/31まで）');
    await waitFor(() =>
      expect(screen.getByRole('combobox', { name: '期間' })).toHaveValue('今年度（2026年度・10/31まで）'),
    );
    await waitFor(() =>
      expect(api.referralsComparison).toHaveBeenLastCalledWith(
        expect.objectContaining({
          body: expect.objectContaining({
            period: { from: '2026-04-01', to: '2026-10-31' },
            comparison_period: { from: '2025-04-01', to: '2025-10-31' },
          }),
        }),
      ),
    );
  });

  it('shows each breakdown against the comparison period and the rankings with links to the institution', async () => {
    const router = renderPage(fakeApi());
    const own = await screen.findByRole('table', { name: '自院診療科別' });
    const internal = within(own).getByRole('row', { name: /内科/ });
    expect(internal).toHaveTextContent('内科3020+10+50.0%1240.0%310.0%');
    expect(await screen.findByRole('table', { name: '地域別' })).toHaveTextContent('静岡県 静岡市');
    // The aggregation names a facility type by its code; the page shows the master's name.
    expect(await screen.findByRole('table', { name: '施設種別' })).toHaveTextContent('一般病院');

    const risers = await screen.findByTestId('ranking-risers');
    // A riser's rank is its place among the period's referrers, not in this list: the header says so.
    expect(within(risers).getAllByRole('columnheader')[0]).toHaveTextContent('全体順位');
    expect(within(screen.getByTestId('ranking-top')).getAllByRole('columnheader')[0]).toHaveTextContent(/^順位$/);
    expect(within(risers).getByRole('row', { name: /駿河クリニック/ })).toHaveTextContent('+15');
    expect(within(screen.getByTestId('ranking-lost')).getByRole('row', { name: /閉院医院/ })).toHaveTextContent('08');
    expect(within(screen.getByTestId('ranking-fallers')).queryByText('駿河クリニック')).toBeNull();

    // A real link (a new tab opens it too); a plain click opens it inside the app.
    const link = within(screen.getByTestId('ranking-top')).getByRole('link', { name: '駿河クリニック' });
    expect(link).toHaveAttribute('href', `/app/crms/${id(1)}`);
    await userEvent.click(link);
    await screen.findByText('医療機関ページ');
    expect(router.state.location.pathname).toBe(`/crms/${id(1)}`);
  });

  it('shows the visit effectiveness with its definition and the control group', async () => {
    renderPage(fakeApi());
    expect(await screen.findByTestId('effectiveness-communicated-rate')).toHaveTextContent('+150.0%');
    expect(screen.getByTestId('effectiveness-control-rate')).toHaveTextContent('-10.0%');
    expect(screen.getByTestId('effectiveness-definition')).toHaveTextContent(
      '期間（2026/04/01〜2026/11/24）に訪問した医療機関（同じ日の訪問は1回と数えます）について、期間の紹介件数を比較期間（2025/04/01〜2025/11/24）',
    );
  });

  it('changes the period to the previous 年度 through the URL, and filters by own department', async () => {
    const onSearchChange = vi.fn();
    renderPage(fakeApi(), { onSearchChange });
    await userEvent.click(await screen.findByRole('combobox', { name: '期間' }));
    await userEvent.click(await screen.findByRole('option', { name: '2025年度', hidden: true }));
    expect(onSearchChange).toHaveBeenLastCalledWith({ from: '2025-04-01', to: '2026-03-31' });

    await userEvent.click(screen.getByRole('combobox', { name: '自院診療科' }));
    await userEvent.click(await screen.findByRole('option', { name: '整形外科', hidden: true }));
    expect(onSearchChange).toHaveBeenLastCalledWith({ own: [id(52)] });
  });

  it("names the account's own department in the filter, and clearing it asks every department", async () => {
    const api = fakeApi();
    const onSearchChange = vi.fn();
    renderPage(api, { ownDepartmentId: id(52), onSearchChange, search: { own: [id(52)] } });
    await screen.findByTestId('kpi-referrals-value');
    expect(api.referralsComparison).toHaveBeenCalledWith(
      expect.objectContaining({ body: expect.objectContaining({ own_department_ids: [id(52)] }) }),
    );
    expect(await screen.findByTestId('analysis-conditions')).toHaveTextContent('自院診療科 整形外科');
    expect(screen.getByText('プロフィールの所属診療科')).toBeInTheDocument();
    const select = screen.getByRole('combobox', { name: '自院診療科' });
    await userEvent.click(select);
    await userEvent.click(await screen.findByRole('option', { name: '整形外科', hidden: true }));
    expect(onSearchChange).toHaveBeenLastCalledWith({ own: [] });
  });

  it('sends the filters of the URL to every call', async () => {
    const api = fakeApi();
    renderPage(api, { search: { from: '2025-04-01', to: '2026-03-31', own: [id(52)], cmp: 'none', unit: 'quarter' } });
    await screen.findByTestId('kpi-referrals-value');
    expect(api.referralsComparison).toHaveBeenCalledWith(
      expect.objectContaining({
        body: expect.objectContaining({
          period: { from: '2025-04-01', to: '2026-03-31' },
          comparison_period: null,
          period_unit: 'quarter',
          own_department_ids: [id(52)],
        }),
      }),
    );
    // No comparison: no second ranking or aggregation call, and the effectiveness compares with the period before.
    expect(api.referralTotalCountRanking).toHaveBeenCalledTimes(1);
    expect(api.effectivenessVerification).toHaveBeenCalledWith(
      expect.objectContaining({
        body: expect.objectContaining({ comparison_period: { from: '2024-04-01', to: '2025-03-31' } }),
      }),
    );
    expect(await screen.findByTestId('analysis-conditions')).toHaveTextContent('比較なし 自院診療科 整形外科');
    // The comparison calls answer last year's figures all the same: the charts leave them out.
    const trend = await screen.findByRole('table', { name: '紹介件数の推移（四半期別）' });
    expect(trend).toHaveTextContent('紹介（対象期間）');
    expect(trend).not.toHaveTextContent('比較期間');
    const both = await screen.findByRole('table', { name: '紹介・逆紹介の比較' });
    expect(both).toHaveTextContent('逆紹介（対象期間）');
    expect(both).not.toHaveTextContent('比較期間');
  });

  it('sends the area of the URL to the charts, the rankings, the aggregation and the effectiveness, and prints it', async () => {
    const api = fakeApi();
    renderPage(api, { search: { pref: ['22'], city: ['静岡市葵区'] } });
    await screen.findByTestId('kpi-referrals-value');
    const area = { prefectures: ['22'], cities: ['静岡市葵区'] };
    expect(api.referralsComparison).toHaveBeenCalledWith(
      expect.objectContaining({ body: expect.objectContaining(area) }),
    );
    expect(api.referralTotalCountRanking).toHaveBeenCalledWith(
      expect.objectContaining({ body: expect.objectContaining(area) }),
    );
    expect(api.referralReportsAggregationResults).toHaveBeenCalledWith(
      expect.objectContaining({
        body: expect.objectContaining({ filter_conditions: expect.objectContaining(area) }),
      }),
    );
    await waitFor(() =>
      expect(api.effectivenessVerification).toHaveBeenCalledWith(
        expect.objectContaining({ body: expect.objectContaining(area) }),
      ),
    );
    expect(await screen.findByTestId('analysis-conditions')).toHaveTextContent('地域 静岡県・静岡市葵区');
  });

  it('says which file to upload when the period has no data, and keeps each panel loading on its own', async () => {
    const empty = chart(Array(8).fill(null), Array(8).fill(null));
    renderPage(
      fakeApi({
        referralsComparison: vi.fn(async () => empty),
        referralTotalCountRanking: vi.fn(() => new Promise(() => {})),
      }),
    );
    const notice = await screen.findByTestId('analysis-empty');
    expect(notice).toHaveTextContent('「紹介リスト」のファイルをアップロードしてください');
    expect(within(notice).getByRole('link', { name: 'データアップロード' })).toHaveAttribute(
      'href',
      '/app/data_uploads',
    );
    expect(within(screen.getByTestId('ranking-panel')).getByText('読み込み中…')).toBeInTheDocument();
    expect(await screen.findByTestId('kpi-referrals-value')).toHaveTextContent('40');
  });

  it('tells a member who brings the data in, without a link to the uploads they cannot open', async () => {
    const empty = chart(Array(8).fill(null), Array(8).fill(null));
    renderPage(fakeApi({ referralsComparison: vi.fn(async () => empty) }), { role: 'member' });
    const notice = await screen.findByTestId('analysis-empty');
    expect(notice).toHaveTextContent(
      '管理者がデータアップロード画面で「紹介リスト」のファイルを取り込むと表示されます',
    );
    expect(within(notice).queryByRole('link')).toBeNull();
  });

  it('shows a refused call in its own panel only', async () => {
    renderPage(
      fakeApi({
        effectivenessVerification: vi.fn(async () => {
          throw new ApiError(403, 'アクセス権限がありません。');
        }),
      }),
    );
    const panel = await screen.findByTestId('effectiveness-panel');
    expect(await within(panel).findByText('この集計はご契約の機能に含まれていません。')).toBeInTheDocument();
    expect(await screen.findByTestId('kpi-referrals-value')).toHaveTextContent('40');
  });

  it('leaves out what the tenant has not contracted', async () => {
    const api = fakeApi();
    renderPage(api, { features: ['data_analysis'] });
    expect(await screen.findByTestId('ranking-panel')).toBeInTheDocument();
    expect(screen.queryByTestId('kpi-cards')).toBeNull();
    expect(screen.queryByTestId('effectiveness-panel')).toBeNull();
    expect(api.referralReportsAggregationResults).not.toHaveBeenCalled();
    expect(api.reverseReferralsComparisonMonthly).not.toHaveBeenCalled();
  });

  it('offers a group tenant the group tab, which asks only the group calls', async () => {
    const group = {
      getCurrentUser: vi.fn(async () => ({
        tenant: { is_group: true, group_medical_institutions: [{ id: id(81), name: '駿河中央病院' }] },
      })),
    };
    const onSearchChange = vi.fn();
    renderPage(fakeApi(group), { onSearchChange });
    await userEvent.click(await screen.findByRole('tab', { name: 'グループ比較' }));
    expect(onSearchChange).toHaveBeenLastCalledWith({ view: 'group' });

    const api = fakeApi(group);
    renderPage(api, { search: { view: 'group' } });
    const table = await screen.findByRole('table', { name: 'グループ病院の紹介件数（期間比較）' });
    expect(within(table).getByRole('row', { name: /清水分院/ })).toHaveTextContent('清水分院4550');
    expect(api.groupReferrals).toHaveBeenCalledWith(
      expect.objectContaining({ body: expect.objectContaining({ period: { from: '2026-04-01', to: '2026-11-24' } }) }),
    );
    expect(api.referralsComparison).not.toHaveBeenCalled();
    expect(api.referralTotalCountRanking).not.toHaveBeenCalled();
  });

  it('shows no group tab to a hospital that is not a group', async () => {
    renderPage(fakeApi());
    await screen.findByTestId('kpi-referrals-value');
    expect(screen.queryByRole('tab', { name: 'グループ比較' })).toBeNull();
  });

  it('exports a ranking to Excel with its figures as numbers', async () => {
    let saved: Blob | undefined;
    vi.spyOn(URL, 'createObjectURL').mockImplementation((blob) => {
      saved = blob as Blob;
      return 'blob:test';
    });
    vi.spyOn(URL, 'revokeObjectURL').mockImplementation(() => {});
    vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(() => {});
    renderPage(fakeApi());
    const top = await screen.findByTestId('ranking-top');
    await within(top).findByText('駿河クリニック');
    // Named after its table: the page has one such button per panel.
    await userEvent.click(within(top).getByRole('button', { name: '紹介件数上位を出力' }));
    await userEvent.click(await screen.findByRole('menuitem', { name: 'Excel（.xlsx）' }));
    await waitFor(() => expect(saved).toBeDefined());
    const Excel = await import('exceljs');
    const workbook = new Excel.Workbook();
    // jsdom's Blob has no arrayBuffer(); FileReader reads it as a browser would.
    const bytes = await new Promise<ArrayBuffer>((resolve) => {
      const reader = new FileReader();
      reader.onload = () => resolve(reader.result as ArrayBuffer);
      reader.readAsArrayBuffer(saved!);
    });
    await workbook.xlsx.load(bytes);
    const sheet = workbook.worksheets[0]!;
    expect(sheet.getRow(1).values).toEqual([
      undefined,
      '順位',
      '医療機関',
      '紹介件数',
      '比較期間',
      '増減',
      '増減率(%)',
    ]);
    expect(sheet.getRow(2).values).toEqual([undefined, 1, '駿河クリニック', 25, 10, 15, 150]);
  });

  it('says once that a period outside the dates it can ask is not counted, and asks nothing for it', async () => {
    const api = fakeApi();
    renderPage(api, { search: { from: '0002-04-01', to: '2026-11-24' } });
    expect(await screen.findByTestId('analysis-period-problem')).toHaveTextContent(
      '期間は1900年1月1日から2100年12月31日の間で指定してください。',
    );
    expect(screen.queryByTestId('kpi-referrals')).toBeNull();
    expect(api.referralsComparison).not.toHaveBeenCalled();
    expect(api.referralReportsAggregationResults).not.toHaveBeenCalled();
    expect(api.referralTotalCountRanking).not.toHaveBeenCalled();
  });
});
