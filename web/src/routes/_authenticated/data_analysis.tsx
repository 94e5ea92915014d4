import { createFileRoute } from '@tanstack/react-router';
import { requireFeature } from '../../features/current-user/require-feature.ts';
import { todayInJapan, withDefaults } from '../../features/data-analysis/analysis-periods.ts';
import { analysisSearch } from '../../features/data-analysis/analysis-search.ts';
import { prefetchDataAnalysis } from '../../features/data-analysis/data-analysis.queries.ts';
import { DataAnalysisPage } from '../../features/data-analysis/components/DataAnalysisPage.tsx';

export const Route = createFileRoute('/_authenticated/data_analysis')({
  // The loader in a chunk of its own: its calls start as soon as that small chunk runs, while the page's
  // chunk (the charts) still loads and evaluates, instead of after it (the default groups them).
  codeSplitGroupings: [['loader'], ['component'], ['pendingComponent'], ['errorComponent'], ['notFoundComponent']],
  staticData: { title: 'データ分析' },
  validateSearch: analysisSearch,
  beforeLoad: ({ context }) => requireFeature(context.user, 'data_analysis'),
  loaderDeps: ({ search }) => search,
  // The page's calls start with its code, before its first render (not awaited: the page shows at once).
  loader: ({ context, deps }) => {
    if (deps.view !== 'group')
      prefetchDataAnalysis(
        context.queryClient,
        context.api,
        withDefaults(deps, todayInJapan()),
        context.user?.features ?? [],
      );
  },
  component: DataAnalysisRoute,
});

function DataAnalysisRoute() {
  const search = Route.useSearch();
  const navigate = Route.useNavigate();
  const { user } = Route.useRouteContext();
  return (
    <DataAnalysisPage
      search={search}
      features={user?.features ?? []}
      onSearchChange={(patch) => void navigate({ search: (prev) => ({ ...prev, ...patch }) })}
    />
  );
}
