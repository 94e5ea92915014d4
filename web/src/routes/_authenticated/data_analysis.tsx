import { createFileRoute } from '@tanstack/react-router';
import { requireFeature } from '../../features/current-user/require-feature.ts';
import { analysisSearch } from '../../features/data-analysis/analysis-search.ts';
import { DataAnalysisPage } from '../../features/data-analysis/components/DataAnalysisPage.tsx';

export const Route = createFileRoute('/_authenticated/data_analysis')({
  staticData: { title: 'データ分析' },
  validateSearch: analysisSearch,
  beforeLoad: ({ context }) => requireFeature(context.user, 'data_analysis'),
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
