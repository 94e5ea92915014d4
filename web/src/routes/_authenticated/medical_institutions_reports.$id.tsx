import { createFileRoute } from '@tanstack/react-router';
import { enumParam, intParam, type SearchInput } from '../../app/search-params.ts';
import { requireFeature } from '../../features/current-user/require-feature.ts';
import { ReportDetailPage, type ReportDetailParams } from '../../features/reports/components/ReportDetailPage.tsx';
import { reportQueries } from '../../features/reports/reports.queries.ts';

const kind = 'medical_institution_reports';

const ReportSearch = (search: SearchInput): ReportDetailParams => ({
  page: intParam(search.page, 1, Number.MAX_SAFE_INTEGER, 1),
  mode: enumParam(search.mode, ['view', 'edit'], 'view'),
  tab: enumParam(search.tab, ['result', 'aggregation', 'alert'], 'result'),
});

export const Route = createFileRoute('/_authenticated/medical_institutions_reports/$id')({
  staticData: { title: '医療機関レポート' },
  validateSearch: ReportSearch,
  beforeLoad: ({ context }) => requireFeature(context.user, 'medical_institution_report'),
  loader: ({ context, params }) =>
    Promise.all([
      context.queryClient.ensureQueryData(reportQueries.detail(context.api, kind, params.id)),
      context.queryClient.ensureQueryData(reportQueries.items(context.api, kind)),
    ]),
  component: MedicalInstitutionsReportsDetailRoute,
});

function MedicalInstitutionsReportsDetailRoute() {
  const { id } = Route.useParams();
  const params = Route.useSearch();
  const navigate = Route.useNavigate();
  return (
    <ReportDetailPage
      kind={kind}
      id={id}
      params={params}
      onParamsChange={(next) => void navigate({ search: (prev) => ({ ...prev, ...next }) })}
    />
  );
}
