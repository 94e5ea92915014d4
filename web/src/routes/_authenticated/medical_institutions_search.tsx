import { createFileRoute, stripSearchParams } from '@tanstack/react-router';
import { requireFeature } from '../../features/current-user/require-feature.ts';
import { MedicalInstitutionsSearchPage } from '../../features/medical-institutions/components/MedicalInstitutionsSearchPage.tsx';
import { institutionQueries } from '../../features/medical-institutions/medical-institutions.queries.ts';
import {
  compactState,
  InstitutionSearchState,
  toSearchBody,
} from '../../features/medical-institutions/search-state.ts';

export const Route = createFileRoute('/_authenticated/medical_institutions_search')({
  staticData: { title: '連携先管理' },
  validateSearch: InstitutionSearchState,
  // The router writes validated values back; defaults stay out so one view has one address.
  search: { middlewares: [stripSearchParams({ sort_by: 'kana', sort: 'asc', page: 1, per_page: 20 })] },
  beforeLoad: ({ context }) => requireFeature(context.user, 'medical_institutions_search'),
  loaderDeps: ({ search }) => search,
  // Not awaited: a filter change keeps the previous rows on screen while the next page loads.
  loader: ({ context, deps }) =>
    void context.queryClient.prefetchQuery(institutionQueries.search(context.api, toSearchBody(deps))),
  component: MedicalInstitutionsSearchRoute,
});

function MedicalInstitutionsSearchRoute() {
  const state = Route.useSearch();
  const navigate = Route.useNavigate();
  return (
    <MedicalInstitutionsSearchPage
      state={state}
      onStateChange={(next) => void navigate({ search: compactState(next) as never })}
    />
  );
}
