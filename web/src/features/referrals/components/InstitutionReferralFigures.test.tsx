import { MantineProvider } from '@mantine/core';
import type { ChartData, FeatureKey } from '@renkei/contracts';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import {
  createMemoryHistory,
  createRootRoute,
  createRoute,
  createRouter,
  Outlet,
  RouterProvider,
} from '@tanstack/react-router';
import { render, screen, within } from '@testing-library/react';
import type { ReactNode } from 'react';
import { describe, expect, it, vi } from 'vitest';
import { ApiError } from '../../../api/api-errors.ts';
import { ServicesProvider, type AppServices } from '../../../app/services-context.tsx';
import { testServices, testUser } from '../../../test/render-app.tsx';
import { currentUserQueries } from '../../current-user/current-user.queries.ts';
import type { SignedInUser } from '../../current-user/signed-in-user.ts';
import { InstitutionReferralFigures, PartnerChartReferralFigures } from './InstitutionReferralFigures.tsx';

const clinic = '00000000-0000-4000-8000-000000000009';
const today = '2026-11-24';
const withReverse: FeatureKey[] = ['medical_institutions_search', 'reverse_referrals', 'data_uploads'];

/** The months the endpoint names, April 2025 to March 2027: more than asked, to see later months ignored. */
const labels = [2025, 2026].flatMap((fy) =>
  [4, 5, 6, 7, 8, 9, 10, 11, 12, 1, 2, 3].map((m) => `${m >= 4 ? fy : fy + 1}年${m}月`),
);
/** Per 年度: April to November, then December to March (December 2026 on is after today). */
const months = (before: [number, number], now: [number, number]) => [
  ...Array<number>(8).fill(before[0]),
  ...Array<number>(4).fill(before[1]),
  ...Array<number>(8).fill(now[0]),
  ...Array<number>(4).fill(now[1]),
];
const chart: ChartData = {
  labels,
  series: [
    // Last 年度: 5 a month to November (40), 7 after; this 年度: 10 a month to November (80), 99 "after today".
    { key: 'referrals', name: '紹介', values: months([5, 7], [10, 99]) },
    { key: 'admitted', name: '入院', values: months([2, 2], [4, 50]) },
    { key: 'operated', name: '手術', values: months([2, 2], [1, 50]) },
    { key: 'reverse_referrals', name: '逆紹介', values: months([1, 1], [3, 50]) },
  ],
};
const nothing: ChartData = {
  labels,
  series: chart.series.map((s) => ({ ...s, values: labels.map(() => 0) })),
};

/** The answer's April–November of the last 年度: what the last 年度 to 2025-11-24 holds in these tests. */
const lastYearOf = (data: ChartData): ChartData => ({
  labels: data.labels.slice(0, 8),
  series: data.series.map((x) => ({ ...x, values: x.values.slice(0, 8) })),
});

/** The partner chart's section, as PartnerChart passes it. */
function Section({ title, children }: { title: string; children: ReactNode }) {
  return (
    <section>
      <h4>{title}</h4>
      {children}
    </section>
  );
}

function renderFigures(
  answer: () => Promise<ChartData>,
  opts: {
    user?: SignedInUser;
    variant?: 'card' | 'compact';
    client?: QueryClient;
    lastYear?: () => Promise<ChartData>;
  } = {},
) {
  // The last 年度 to the same date is asked apart: answered here with April–November of the last 年度 of the
  // same answer (a month's values stand for its days), unless the test answers it itself.
  const api = {
    medicalInstitutionReferrals: vi.fn(async (req: { body: { period: { from: string; to: string } } }) =>
      req.body.period.to === today ? answer() : (opts.lastYear ?? (async () => lastYearOf(await answer())))(),
    ),
  };
  const services: AppServices = { ...testServices(), api: api as unknown as AppServices['api'] };
  const client = opts.client ?? new QueryClient({ defaultOptions: { queries: { retry: false } } });
  // The authenticated layout caches the signed-in user before any page renders.
  client.setQueryData(
    currentUserQueries.detail(services.api).queryKey,
    opts.user ?? testUser({ role: 'owner', features: withReverse }),
  );
  const root = createRootRoute({ component: () => <Outlet /> });
  const page = createRoute({
    getParentRoute: () => root,
    path: '/crms/$id',
    component: () =>
      opts.variant === 'compact' ? (
        <PartnerChartReferralFigures id={clinic} today={today} section={Section} />
      ) : (
        <InstitutionReferralFigures id={clinic} today={today} />
      ),
  });
  const referrals = createRoute({ getParentRoute: () => root, path: '/crms/$id/referrals', component: () => null });
  const uploads = createRoute({ getParentRoute: () => root, path: '/data_uploads', component: () => null });
  const router = createRouter({
    routeTree: root.addChildren([page, referrals, uploads]),
    history: createMemoryHistory({ initialEntries: [`/app/crms/${clinic}`] }),
    basepath: '/app',
  });
  const utils = render(
    <MantineProvider>
      <ServicesProvider value={services}>
        <QueryClientProvider client={client}>
          <RouterProvider router={router as never} />
        </QueryClientProvider>
      </ServicesProvider>
    </MantineProvider>,
  );
  return { api, client, ...utils };
}

describe('institution referral figures', () => {
  it('asks the months from April of the last 年度 to today, and the last 年度 to the same date', async () => {
    const { api } = renderFigures(async () => chart);
    await screen.findByTestId('kpi-referrals-value');
    expect(api.medicalInstitutionReferrals).toHaveBeenCalledTimes(2);
    expect(api.medicalInstitutionReferrals).toHaveBeenCalledWith(
      expect.objectContaining({
        params: { id: clinic },
        body: { period: { from: '2025-04-01', to: today }, period_unit: 'month' },
      }),
    );
    expect(api.medicalInstitutionReferrals).toHaveBeenCalledWith(
      expect.objectContaining({
        params: { id: clinic },
        body: { period: { from: '2025-04-01', to: '2025-11-24' }, period_unit: 'month' },
      }),
    );
  });

  it('compares with the last 年度 to the same date, not with the whole of its month', async () => {
    // The server counts days exactly: last November to the 24th held 2 of the month's 5 referrals.
    const toTheDay: ChartData = {
      labels: labels.slice(0, 8),
      series: chart.series.map((x) => ({ ...x, values: [...x.values.slice(0, 7), x.key === 'referrals' ? 2 : 0] })),
    };
    renderFigures(async () => chart, { lastYear: async () => toTheDay });
    expect(await screen.findByTestId('kpi-referrals-value')).toHaveTextContent(/^80$/);
    // 7 whole months of 5 and November to the 24th: 37, not 40.
    expect(screen.getByTestId('kpi-referrals')).toHaveTextContent('前年同期 37件');
    expect(screen.getByTestId('referral-figures-period')).toHaveTextContent(
      '前年同期（2025/4/1〜11/24）と、同じ日付までの件数で比較しています。',
    );
  });

  it('sums this 年度 to date against the same months a year before, with the rates and the change', async () => {
    renderFigures(async () => chart);
    const card = await screen.findByTestId('institution-referral-figures');
    expect(within(card).getByRole('heading', { name: '紹介実績 2026年度（4月〜11月）' })).toBeInTheDocument();
    // 8 months of 10, not the 99s of the months after today; against 8 of 5, not the last 年度's later 7s.
    expect(await screen.findByTestId('kpi-referrals-value')).toHaveTextContent(/^80$/);
    const referrals = screen.getByTestId('kpi-referrals');
    expect(referrals).toHaveTextContent('+40（+100.0%）');
    expect(referrals).toHaveTextContent('前年同期 40件');
    const admissions = screen.getByTestId('kpi-admissions');
    expect(screen.getByTestId('kpi-admissions-value')).toHaveTextContent(/^32$/);
    expect(admissions).toHaveTextContent('+16（+100.0%）');
    expect(admissions).toHaveTextContent('入院率 40.0% （前年同期 40.0%）');
    const operations = screen.getByTestId('kpi-operations');
    expect(screen.getByTestId('kpi-operations-value')).toHaveTextContent(/^8$/);
    expect(operations).toHaveTextContent('-8（-50.0%）');
    expect(operations).toHaveTextContent('手術率 10.0% （前年同期 40.0%）');
    expect(screen.getByTestId('kpi-reverse_referrals-value')).toHaveTextContent(/^24$/);
    expect(screen.getByTestId('kpi-reverse_referrals')).toHaveTextContent('+16（+200.0%）');
    // Up green, down red, as on the top page.
    expect(within(operations).getByText('-8（-50.0%）').closest('.mantine-Badge-root')).toHaveStyle({
      '--badge-color': 'var(--mantine-color-red-light-color)',
    });
    expect(within(referrals).getByText('+40（+100.0%）').closest('.mantine-Badge-root')).toHaveStyle({
      '--badge-color': 'var(--mantine-color-teal-light-color)',
    });
    // The trend: both 年度 from April, this one stopping before the month under way.
    expect(screen.getByRole('img', { name: '月別の紹介件数（2026年度と2025年度）' })).toBeInTheDocument();
    expect(within(card).getByTestId('referral-trend-note')).toHaveTextContent('11月（途中）はグラフに含みません');
    expect(within(card).getByRole('link', { name: '紹介実績を見る' })).toHaveAttribute(
      'href',
      `/app/crms/${clinic}/referrals`,
    );
  });

  it('leaves reverse referrals out where the tenant does not have them', async () => {
    renderFigures(async () => chart, { user: testUser({ features: ['medical_institutions_search'] }) });
    expect(await screen.findByTestId('kpi-referrals-value')).toHaveTextContent(/^80$/);
    expect(screen.queryByTestId('kpi-reverse_referrals')).toBeNull();
  });

  it('says there is no referral yet, with the upload page linked for an owner only', async () => {
    renderFigures(async () => nothing);
    const empty = await screen.findByTestId('referral-figures-empty');
    expect(empty).toHaveTextContent(
      'この医療機関からの紹介データはまだありません（2025年度以降）。データアップロードから紹介リストを取り込むと表示されます。',
    );
    expect(within(empty).getByRole('link', { name: 'データアップロード' })).toHaveAttribute(
      'href',
      '/app/data_uploads',
    );
    expect(screen.queryByTestId('kpi-cards')).toBeNull();
    // The referral page stays one click away: hand entries are made there.
    expect(screen.getByRole('link', { name: '紹介実績を見る' })).toBeInTheDocument();
  });

  it('gives a member the same words without the link', async () => {
    renderFigures(async () => nothing, { user: testUser({ role: 'member', features: withReverse }) });
    const empty = await screen.findByTestId('referral-figures-empty');
    expect(empty).toHaveTextContent('データアップロードから紹介リストを取り込むと表示されます。');
    expect(within(empty).queryByRole('link')).toBeNull();
  });

  it('shows placeholders while loading and says so when the figures cannot be read', async () => {
    let fail: (e: unknown) => void = () => {};
    renderFigures(() => new Promise<ChartData>((_, reject) => (fail = reject)));
    expect(await screen.findByTestId('kpi-cards')).toBeInTheDocument();
    expect(screen.getByTestId('kpi-referrals').querySelector('[aria-busy="true"]')).not.toBeNull();
    fail(new ApiError(500, 'サーバーエラー'));
    expect(await screen.findByText('紹介実績を読み込めませんでした。')).toBeInTheDocument();
    expect(screen.queryByTestId('kpi-cards')).toBeNull();
  });

  it('reads the figures again each time it is shown (an import may have ended elsewhere meanwhile)', async () => {
    const first = renderFigures(async () => chart);
    await screen.findByTestId('kpi-referrals-value');
    first.unmount();
    const second = renderFigures(async () => chart, { client: first.client });
    await screen.findByTestId('kpi-referrals-value');
    expect(second.api.medicalInstitutionReferrals).toHaveBeenCalledTimes(2);
  });

  it('fits the partner chart: a table of both periods with the rates beside the counts, and the change', async () => {
    renderFigures(async () => chart, { variant: 'compact' });
    expect(
      await screen.findByRole('heading', { name: '紹介実績 2026年度（4月〜11月）・前年同期比' }),
    ).toBeInTheDocument();
    const row = async (key: string) =>
      [...(await screen.findByTestId(`figure-${key}`)).querySelectorAll('th, td')].map((c) => c.textContent);
    expect(await row('referrals')).toEqual(['紹介', '80件', '40件', '+40（+100.0%）']);
    expect(await row('admissions')).toEqual(['入院', '32件（40.0%）', '16件（40.0%）', '+16（+100.0%）']);
    expect(await row('operations')).toEqual(['手術', '8件（10.0%）', '16件（40.0%）', '-8（-50.0%）']);
    expect(await row('reverse_referrals')).toEqual(['逆紹介', '24件', '8件', '+16（+200.0%）']);
    expect(screen.getByRole('columnheader', { name: '2026年度' })).toBeInTheDocument();
    expect(screen.getByRole('columnheader', { name: '前年同期' })).toBeInTheDocument();
    expect(screen.getByTestId('referral-figures-period')).toHaveTextContent(
      '（ ）内は入院率・手術率。前年同期は2025/4/1〜11/24（同じ日付までの件数）。',
    );
    expect(screen.getByRole('img', { name: '月別の紹介件数（2026年度と2025年度）' })).toBeInTheDocument();
    // Paper has no links to follow.
    expect(screen.queryByRole('link')).toBeNull();
  });

  it('on the partner chart says there is no referral yet, without the link', async () => {
    renderFigures(async () => nothing, { variant: 'compact' });
    expect(await screen.findByTestId('referral-figures-empty')).toHaveTextContent(
      'この医療機関からの紹介データはまだありません（2025年度以降）。データアップロードから紹介リストを取り込むと表示されます。',
    );
    expect(screen.queryByRole('link')).toBeNull();
  });
});
