import { createFileRoute } from '@tanstack/react-router';
import { intParam, type SearchInput } from '../../app/search-params.ts';
import { requireFeature } from '../../features/current-user/require-feature.ts';
import { ReportListPage } from '../../features/reports/components/ReportListPage.tsx';
import { reportQueries, type ReportListParams } from '../../features/reports/reports.queries.ts';

const kind = 'area_reports';

const ReportsSearch = (search: SearchInput): ReportListParams => ({
  page: intParam(search.page, 1, Number.MAX_SAFE_INTEGER, 1),
  sort_by: 'create_date',
});

export const Route = createFileRoute('/_authenticated/area_reports/')({
  staticData: { title: 'エリアレポート' },
  validateSearch: ReportsSearch,
  beforeLoad: ({ context }) => requireFeature(context.user, 'area_report'),
  loaderDeps: ({ search }) => search,
  loader: ({ context, deps }) => context.queryClient.ensureQueryData(reportQueries.list(context.api, kind, deps)),
  component: AreaReportsRoute,
});

function AreaReportsRoute() {
  const params = Route.useSearch();
  const navigate = Route.useNavigate();
  return (
    <ReportListPage
      kind={kind}
      params={params}
      onParamsChange={(next) => void navigate({ search: (prev) => ({ ...prev, ...next }) })}
    />
  );
}
