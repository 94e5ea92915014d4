import { useQuery } from '@tanstack/react-query';
import { createFileRoute } from '@tanstack/react-router';
import { isUuid, type SearchInput } from '../../app/search-params.ts';
import { useServices } from '../../app/services-context.tsx';
import { requireFeature } from '../../features/current-user/require-feature.ts';
import { CommunicationForm } from '../../features/communications/components/CommunicationForm.tsx';
import { institutionQueries } from '../../features/medical-institutions/medical-institutions.queries.ts';

const NewSearch = (search: SearchInput): { medical_institution_id?: string } =>
  isUuid(search.medical_institution_id) ? { medical_institution_id: search.medical_institution_id } : {};

export const Route = createFileRoute('/_authenticated/communications/new')({
  staticData: { title: '活動の記録' },
  validateSearch: NewSearch,
  beforeLoad: ({ context }) => requireFeature(context.user, 'communications'),
  component: NewCommunicationRoute,
});

function NewCommunicationRoute() {
  const { medical_institution_id: id } = Route.useSearch();
  const navigate = Route.useNavigate();
  const { api } = useServices();
  const summary = useQuery({ ...institutionQueries.summary(api, id ?? ''), enabled: Boolean(id) });
  if (id && !summary.data) return null;
  return (
    <CommunicationForm
      key={id ?? 'any'}
      heading
      institution={summary.data ? { id: summary.data.id, name: summary.data.name } : null}
      onSaved={(institutionId) =>
        void navigate({
          to: '/crms/$id/communications',
          params: { id: institutionId },
          search: { page: 1, sort: 'desc' },
        })
      }
    />
  );
}
