import { Alert, SimpleGrid, Stack, Tabs, Text, Title } from '@mantine/core';
import { memo, useCallback, useMemo } from 'react';
import type { ChartData, FeatureKey } from '@renkei/contracts';
import { keepPreviousData, useQuery, type UseQueryResult } from '@tanstack/react-query';
import { AnchorLink } from '../../medical-institutions/components/router-links.tsx';
import { currentUserQueries } from '../../current-user/current-user.queries.ts';
import { useServices } from '../../../app/services-context.tsx';
import { prefectures } from '../../reference-data/prefectures.ts';
import { referenceDataQueries } from '../../reference-data/reference-data.queries.ts';
import {
  comparisonOf,
  markPartialBuckets,
  periodProblem,
  todayInJapan,
  withDefaults,
  yearToDateEnd,
} from '../analysis-periods.ts';
import type { AnalysisFilters, AnalysisSearch } from '../analysis-search.ts';
import type { GroupLabels } from '../breakdown.ts';
import { totalsOf } from '../breakdown.ts';
import { dataAnalysisQueries, effectivenessComparison, periodOf, type Grouping } from '../data-analysis.queries.ts';
import { hasData, splitComparison, sumOf } from '../figures.ts';
import { BreakdownPanel } from './BreakdownPanel.tsx';
import { ChartPanel } from './ChartPanel.tsx';
import { EffectivenessPanel } from './EffectivenessPanel.tsx';
import { comparisonLabels, FilterBar, unitLabels } from './FilterBar.tsx';
import { GroupPanels } from './GroupPanels.tsx';
import { KpiCards, referralKpis } from './KpiCards.tsx';
import { RankingPanel } from './RankingPanel.tsx';
import { VisitAnalysisPanel } from './VisitAnalysisPanel.tsx';

// The frame has no place on paper; the page prints on A4 landscape with its filters in the header, and the
// scrolled tables print whole (their sticky headings, kept sticky, would print over other panels).
const printStyle = `
@page { size: A4 landscape; margin: 10mm; }
@media print {
  .mantine-AppShell-header, .mantine-AppShell-navbar, .mantine-AppShell-footer, [data-print-hide] { display: none !important; }
  .mantine-AppShell-main { padding: 0 !important; min-height: 0 !important; }
  [data-table-scroll] { max-height: none !important; overflow: visible !important; }
  [data-panel-body] { min-height: 0 !important; }
  [data-analysis-page] .mantine-Table-thead, [data-analysis-page] .mantine-Table-th { position: static !important; }
  body { background: #fff !important; -webkit-print-color-adjust: exact; print-color-adjust: exact; }
}`;

const keep = { placeholderData: keepPreviousData } as const;
const slash = (day: string) => day.replaceAll('-', '/');

function useAggregation(f: AnalysisFilters, by: Grouping, enabled: boolean) {
  const { api } = useServices();
  const comparison = comparisonOf(periodOf(f), f.cmp);
  const current = useQuery({ ...dataAnalysisQueries.aggregation(api, f, periodOf(f), by), ...keep, enabled });
  const before = useQuery({
    ...dataAnalysisQueries.aggregation(api, f, comparison ?? periodOf(f), by),
    ...keep,
    enabled: enabled && comparison !== null,
  });
  return { current, comparison: comparison ? before : null };
}

function FilterSummary({
  f,
  names,
  dataEnd,
}: {
  f: AnalysisFilters;
  names: { own: string[]; ft: string[]; tags: string[]; pref: string[] };
  /** The last day of the uploaded referral data, when known: a printed page says how current it is. */
  dataEnd: string | null;
}) {
  const comparison = comparisonOf(periodOf(f), f.cmp);
  const parts = [
    `期間 ${slash(f.from)}〜${slash(f.to)}（${unitLabels[f.unit]}単位）`,
    comparison ? `比較 ${slash(comparison.from)}〜${slash(comparison.to)}（${comparisonLabels[f.cmp]}）` : '比較なし',
    `自院診療科 ${names.own.length ? names.own.join('・') : 'すべて'}`,
    `施設種別 ${names.ft.length ? names.ft.join('・') : 'すべて'}`,
    ...(names.pref.length || f.city.length ? [`地域 ${[...names.pref, ...f.city].join('・')}`] : []),
    ...(names.tags.length ? [`タグ ${names.tags.join('・')}`] : []),
    ...(dataEnd ? [`（紹介データは${slash(dataEnd)}まで）`] : []),
  ];
  return (
    <Text size="sm" data-testid="analysis-conditions">
      {parts.join('　')}
    </Text>
  );
}

function EmptyState({ file }: { file: string }) {
  const { api } = useServices();
  // The signed-in user is always cached by the authenticated layout: read it, never fetch it here.
  const user = useQuery({ ...currentUserQueries.detail(api), enabled: false });
  const canUpload = user.data?.role === 'owner' && user.data.features.includes('data_uploads');
  return (
    <Alert color="yellow" variant="light" title="この期間のデータがありません" data-testid="analysis-empty">
      {file}がこの期間を含んでいません。
      {canUpload ? (
        <>
          <AnchorLink to="/data_uploads">データアップロード</AnchorLink>
          画面で「{file}」のファイルをアップロードしてください。
        </>
      ) : (
        // A member cannot open the uploads (owners' work): say who brings the data in.
        `管理者がデータアップロード画面で「${file}」のファイルを取り込むと表示されます。`
      )}
    </Alert>
  );
}

// Each section below asks its own calls and is memoised on its inputs: an answer arriving re-renders
// only the section that asked for it. With every call in the page component, each of the page's ~20
// answers (and each fetching state) re-rendered every panel, and the page spent seconds of script time
// in Chromium after the last answer had arrived. Sections asking the same call share one request (the
// query cache dedupes by key).

const KpiSection = memo(function KpiSection({
  f,
  withReports,
  withReverse,
  hasComparison,
}: {
  f: AnalysisFilters;
  withReports: boolean;
  withReverse: boolean;
  hasComparison: boolean;
}) {
  const { api } = useServices();
  const byOwn = useAggregation(f, ['own_department'], withReports);
  const reverseMonthly = useQuery({
    ...dataAnalysisQueries.reverseReferralsMonthly(api, f),
    ...keep,
    enabled: withReverse,
  });
  const loading =
    (withReports && (byOwn.current.isPending || (byOwn.comparison?.isPending ?? false))) ||
    (withReverse && reverseMonthly.isPending);
  const stale =
    byOwn.current.isPlaceholderData ||
    (byOwn.comparison?.isPlaceholderData ?? false) ||
    (withReverse && reverseMonthly.isPlaceholderData);
  const kpis = withReports
    ? referralKpis(
        byOwn.current.data ? totalsOf(byOwn.current.data) : null,
        byOwn.comparison?.data ? totalsOf(byOwn.comparison.data) : null,
      )
    : [];
  if (withReverse) {
    const split = reverseMonthly.data ? splitComparison(reverseMonthly.data) : null;
    kpis.splice(1, 0, {
      key: 'reverse_referrals',
      label: '逆紹介件数',
      value: split?.current ? sumOf(split.current.values) : null,
      comparison: split?.comparison ? sumOf(split.comparison.values) : null,
    });
  }
  return (
    <>
      {withReverse && reverseMonthly.data && !hasData(reverseMonthly.data) && <EmptyState file="逆紹介リスト" />}
      {kpis.length > 0 && <KpiCards kpis={kpis} loading={loading} stale={stale} hasComparison={hasComparison} />}
    </>
  );
});

const TrendSection = memo(function TrendSection({ f }: { f: AnalysisFilters }) {
  const { api } = useServices();
  const mark = useCallback((chart: ChartData) => markPartialBuckets(chart, f), [f]);
  const trend = useQuery({ ...dataAnalysisQueries.referralsTrend(api, f), ...keep, select: mark });
  return (
    <>
      {trend.data && !hasData(trend.data) && <EmptyState file="紹介リスト" />}
      <ChartPanel
        title={`紹介件数の推移（${unitLabels[f.unit]}別）`}
        testId="trend-panel"
        axis={unitLabels[f.unit]}
        kind="line"
        query={trend}
        withComparison={f.cmp !== 'none'}
      />
    </>
  );
});

const BreakdownSection = memo(function BreakdownSection({
  f,
  title,
  testId,
  groupLabel,
  by,
  labels,
}: {
  f: AnalysisFilters;
  title: string;
  testId: string;
  groupLabel: string;
  by: Grouping;
  labels?: GroupLabels | undefined;
}) {
  const aggregation = useAggregation(f, by, true);
  return (
    <BreakdownPanel
      title={title}
      testId={testId}
      groupLabel={groupLabel}
      by={by}
      {...(labels ? { labels } : {})}
      {...aggregation}
    />
  );
});

const RankingSection = memo(function RankingSection({ f }: { f: AnalysisFilters }) {
  const { api } = useServices();
  const period = periodOf(f);
  const comparison = comparisonOf(period, f.cmp);
  const rankNow = useQuery({ ...dataAnalysisQueries.ranking(api, f, period), ...keep });
  const rankBefore = useQuery({
    ...dataAnalysisQueries.ranking(api, f, comparison ?? period),
    ...keep,
    enabled: comparison !== null,
  });
  return <RankingPanel current={rankNow} comparison={comparison ? rankBefore : null} />;
});

const BothReferralsSection = memo(function BothReferralsSection({ f }: { f: AnalysisFilters }) {
  const { api } = useServices();
  const mark = useCallback((chart: ChartData) => markPartialBuckets(chart, f), [f]);
  const both = useQuery({ ...dataAnalysisQueries.bothReferrals(api, f), ...keep, select: mark });
  return (
    <ChartPanel
      title="紹介・逆紹介の比較"
      testId="both-referrals-panel"
      axis={unitLabels[f.unit]}
      kind="bar"
      query={both as UseQueryResult<NonNullable<typeof both.data>>}
      withComparison={f.cmp !== 'none'}
    />
  );
});

const EffectivenessSection = memo(function EffectivenessSection({ f }: { f: AnalysisFilters }) {
  const { api } = useServices();
  const effectiveness = useQuery({ ...dataAnalysisQueries.effectiveness(api, f), ...keep });
  return <EffectivenessPanel query={effectiveness} period={periodOf(f)} comparison={effectivenessComparison(f)} />;
});

const byOwnDepartment: Grouping = ['own_department'];
const byReferralDepartment: Grouping = ['referral_department'];
const byArea: Grouping = ['prefecture', 'city'];
const byFacilityType: Grouping = ['facility_type'];

/** The top page: the period's referrals at a glance, where they come from, who changed, and whether visits helped. */
export function DataAnalysisPage({
  search,
  today = todayInJapan(),
  features,
  ownDepartmentId = null,
  onSearchChange,
}: {
  search: AnalysisSearch;
  /** The account's own department (`/profile`): the own-department filter's default. */
  ownDepartmentId?: string | null;
  /** Today in Japan unless given (tests fix it). */
  today?: string;
  features: readonly FeatureKey[];
  onSearchChange: (patch: AnalysisSearch) => void;
}) {
  const { api } = useServices();
  // One object per search, so the memoised sections see the same filters until the search changes.
  // This 年度 to date ends where the uploaded data ends (the route's loader asked it first).
  const coverage = useQuery(dataAnalysisQueries.coverage(api));
  const ytdEnd = yearToDateEnd(today, coverage.data?.referrals?.to);
  const f = useMemo(() => withDefaults(search, today, ytdEnd), [search, today, ytdEnd]);
  const comparison = comparisonOf(periodOf(f), f.cmp);
  const problem = periodProblem(f);
  const withReports = features.includes('report');
  const withReverse = features.includes('reverse_referrals');
  const withVisits = features.includes('communications');
  const withTags = features.includes('tags');
  const tenant = useQuery(referenceDataQueries.tenant(api));
  const isGroup = (tenant.data?.is_group ?? false) && (tenant.data?.group_medical_institutions.length ?? 0) > 0;
  // The group tab asks only the group calls; on a group link the own panels wait for the tenant's answer
  // (a link to the tab of a tenant that is no longer a group opens its own analysis).
  const own = !(search.view === 'group' && (tenant.isPending || isGroup));

  const ownDepartments = useQuery(referenceDataQueries.ownDepartments(api));
  const facilityTypes = useQuery(referenceDataQueries.facilityTypeGroups(api));
  const tags = useQuery({ ...dataAnalysisQueries.tags(api), enabled: withTags });
  // The aggregation answers a facility type by its master code; the filter's master names it.
  const facilityTypeName = useCallback(
    (code: string) => facilityTypes.data?.flatMap((g) => g.facility_types).find((t) => t.id === code)?.name ?? code,
    [facilityTypes.data],
  );
  const facilityLabels = useCallback<GroupLabels>((_, code) => facilityTypeName(code), [facilityTypeName]);
  const names = {
    own: f.own.map((id) => ownDepartments.data?.find((d) => d.id === id)?.name ?? id),
    ft: f.ft.map(facilityTypeName),
    tags: f.tags.map((id) => tags.data?.data.find((t) => t.id === id)?.name ?? id),
    pref: f.pref.map((code) => prefectures.find((p) => p.code === code)?.name ?? code),
  };

  return (
    <Stack gap="md" data-analysis-page>
      <style>{printStyle}</style>
      <Title order={1} size="h3">
        データ分析
      </Title>
      <FilterBar
        filters={f}
        today={today}
        ytdEnd={ytdEnd}
        onChange={onSearchChange}
        withTags={withTags}
        ownFromProfile={ownDepartmentId !== null && f.own.length === 1 && f.own[0] === ownDepartmentId}
        hasOwnDefault={ownDepartmentId !== null}
      />
      <FilterSummary f={f} names={names} dataEnd={coverage.data?.referrals?.to ?? null} />
      {isGroup && (
        <Tabs
          value={own ? 'own' : 'group'}
          onChange={(v) => onSearchChange({ view: v === 'group' ? 'group' : undefined })}
          data-print-hide
        >
          <Tabs.List>
            <Tabs.Tab value="own">自院の分析</Tabs.Tab>
            <Tabs.Tab value="group">グループ比較</Tabs.Tab>
          </Tabs.List>
        </Tabs>
      )}
      {problem && (
        <Alert color="yellow" variant="light" title="この期間は集計できません" data-testid="analysis-period-problem">
          {problem}
        </Alert>
      )}
      {!problem && !own && isGroup && <GroupPanels filters={f} />}
      {!problem && own && (
        <>
          <KpiSection f={f} withReports={withReports} withReverse={withReverse} hasComparison={comparison !== null} />
          <TrendSection f={f} />
          {withReports ? (
            // Nine columns each: side by side only where two tables fit without wrapping their headings and
            // names. The room is the content's, not the window's: at 1440 px beside the menu two tables were
            // 560 px each and read 「整形外/科」「増/減」; a container query measures the content itself.
            <SimpleGrid type="container" cols={{ base: 1, '1440px': 2 }}>
              <BreakdownSection
                f={f}
                title="自院診療科別"
                testId="breakdown-own"
                groupLabel="自院診療科"
                by={byOwnDepartment}
              />
              <BreakdownSection
                f={f}
                title="紹介元診療科別"
                testId="breakdown-department"
                groupLabel="紹介元診療科"
                by={byReferralDepartment}
              />
              <BreakdownSection f={f} title="地域別" testId="breakdown-area" groupLabel="地域" by={byArea} />
              <BreakdownSection
                f={f}
                title="施設種別"
                testId="breakdown-facility"
                groupLabel="施設種別"
                by={byFacilityType}
                labels={facilityLabels}
              />
            </SimpleGrid>
          ) : (
            <Text size="sm" c="dimmed">
              診療科別・地域別・施設種別の内訳はレポート機能をご契約の場合に表示されます。
            </Text>
          )}
          <RankingSection f={f} />
          {withReverse && <BothReferralsSection f={f} />}
          {withVisits && <EffectivenessSection f={f} />}
          {withVisits && <VisitAnalysisPanel filters={f} />}
        </>
      )}
    </Stack>
  );
}
