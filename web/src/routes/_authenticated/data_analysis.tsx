import { createFileRoute, redirect } from '@tanstack/react-router';
import { useCallback } from 'react';
import type { AnalysisSearch } from '../../features/data-analysis/analysis-search.ts';
import { requireFeature } from '../../features/current-user/require-feature.ts';
import { todayInJapan, withDefaults } from '../../features/data-analysis/analysis-periods.ts';
import { analysisSearch } from '../../features/data-analysis/analysis-search.ts';
import { prefetchDataAnalysis } from '../../features/data-analysis/data-analysis.prefetch.ts';
import { dataAnalysisQueries } from '../../features/data-analysis/data-analysis.queries.ts';
import { DataAnalysisPage } from '../../features/data-analysis/components/DataAnalysisPage.tsx';

/** The longest the page waits for its answers before it renders with placeholders for those still missing. */
const enterWaitMs = 1500;
/** The longest the figures wait for where the data ends (an index read, tens of milliseconds). */
const coverageWaitMs = 500;

export const Route = createFileRoute('/_authenticated/data_analysis')({
  // The loader in a chunk of its own: its calls start as soon as that small chunk runs, while the page's
  // chunk (the charts) still loads and evaluates, instead of after it (the default groups them).
  codeSplitGroupings: [['loader'], ['component'], ['pendingComponent'], ['errorComponent'], ['notFoundComponent']],
  staticData: { title: 'データ分析' },
  validateSearch: analysisSearch,
  beforeLoad: ({ context, search }) => {
    requireFeature(context.user, 'data_analysis');
    // An account with an own department (/profile) opens on its figures. The choice is written into the
    // link, not applied behind it, so a link sent to a colleague shows what the sender saw.
    const ownDepartmentId = context.user?.ownDepartmentId;
    if (ownDepartmentId && search.own === undefined && search.view !== 'group')
      throw redirect({ to: '/data_analysis', search: { ...search, own: [ownDepartmentId] }, replace: true });
  },
  loaderDeps: ({ search }) => search,
  // Entering the page, its calls start with the loader's small chunk and the page waits for their answers
  // (at most `enterWaitMs`), so it renders once with every figure: rendered first with placeholders, it
  // then re-rendered panel by panel as each of ~25 answers arrived, and that was most of its time to show
  // everything (docs/benchmarks.md, "Issue 13 — 2026-11-29, third session"). A change of filters does not
  // wait: the panels keep the previous figures, dimmed, until the new ones arrive.
  loader: async ({ context, deps, cause }) => {
    if (deps.view === 'group') return;
    // This 年度 to date ends where the data ends: asked first (one small read), unless the link names the
    // end. Without an answer in time the period runs to today, as the page does until the answer comes.
    const dataEnd =
      deps.to === undefined
        ? await Promise.race([
            context.queryClient
              .ensureQueryData(dataAnalysisQueries.coverage(context.api))
              .then((c) => c.referrals?.to ?? null)
              .catch(() => null),
            new Promise<null>((r) => setTimeout(() => r(null), coverageWaitMs)),
          ])
        : null;
    const answered = prefetchDataAnalysis(
      context.queryClient,
      context.api,
      withDefaults(deps, todayInJapan(), dataEnd),
      context.user?.features ?? [],
    );
    if (cause !== 'stay') await Promise.race([answered, new Promise((r) => setTimeout(r, enterWaitMs))]);
  },
  // No pending placeholder while the loader waits: it would stay at least its minimum time (500 ms).
  pendingMs: enterWaitMs,
  component: DataAnalysisRoute,
});

const noFeatures: readonly never[] = [];

function DataAnalysisRoute() {
  const search = Route.useSearch();
  const navigate = Route.useNavigate();
  const { user } = Route.useRouteContext();
  // Stable, so the memoised filter bar does not re-render with each router update while the page loads.
  const onSearchChange = useCallback(
    (patch: AnalysisSearch) => void navigate({ search: (prev) => ({ ...prev, ...patch }) }),
    [navigate],
  );
  return (
    <DataAnalysisPage
      search={search}
      features={user?.features ?? noFeatures}
      ownDepartmentId={user?.ownDepartmentId ?? null}
      onSearchChange={onSearchChange}
    />
  );
}
